// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import Foundation
import StrongroomClient
import StrongroomCrypto

/// The key log's figures (issue 50), release build, each beside its anchor from the same run:
/// proof sizes at 10⁶ leaves beside RFC 9162's bound 32·⌈log2 N⌉; inclusion verification per proof beside the raw
/// SHA-256 work it does (libsodium on the same bytes); with a server URL and a registration token, the SDK's share and
/// key lookup rates with key log verification on beside off.
/// Usage: StrongroomKeyLogBenchmark [leaves, default 1000000] [server URL] [registration token]
@main
struct StrongroomKeyLogBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let leaves = arguments.first.flatMap(Int.init) ?? 1_000_000
        #if DEBUG
        print("warning: debug build; run Scripts/bench-keylog.sh for release figures")
        #endif
        print("Strongroom key log benchmark — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(leaves) leaves")
        try proofs(leaves: leaves)
        if arguments.count >= 3, let url = URL(string: arguments[1]) {
            try await sdk(url: url, token: arguments[2])
        }
    }

    static func proofs(leaves: Int) throws {
        let clock = ContinuousClock()
        var tree = MerkleTree()
        let build = clock.measure {
            for index in 0..<leaves {
                var value = UInt64(index).bigEndian
                tree.append(withUnsafeBytes(of: &value) { MerkleHash.leaf(Array($0)) })
            }
        }
        let size = UInt64(leaves)
        let bound = 32 * Int((log2(Double(leaves))).rounded(.up))
        var generator = SystemRandomNumberGenerator()
        let indexes = (0..<10_000).map { _ in UInt64.random(in: 0..<size, using: &generator) }
        let proofs = indexes.map { tree.inclusionProof(index: $0, size: size) ?? [] }
        let largest = proofs.map { $0.count * 32 }.max() ?? 0
        let consistency = [1, size / 3, size / 2, size - 1].map {
            tree.consistencyProof(oldSize: $0, newSize: size)?.count ?? 0
        }
        print(
            String(
                format: "tree of %d leaves built in memory in %.2f s (%.0f appends/s)",
                leaves,
                build.seconds,
                Double(leaves) / build.seconds
            )
        )
        print("inclusion proof, largest of 10,000 random leaves: \(largest) bytes; bound 32·⌈log2 N⌉ = \(bound) bytes")
        print(
            "consistency proofs to N from 1, N/3, N/2, N−1: \(consistency.map { "\($0 * 32) B" }.joined(separator: ", "))"
        )

        guard let root = tree.root(size: size) else { return }
        let leafHashes = indexes.map { tree.leaf(at: $0) ?? .empty }
        var failures = 0
        let rounds = 10
        let verify = clock.measure {
            for _ in 0..<rounds {
                for (position, index) in indexes.enumerated() {
                    do {
                        try MerkleProof.verifyInclusion(
                            leaf: leafHashes[position],
                            index: index,
                            treeSize: size,
                            proof: proofs[position],
                            root: root
                        )
                    } catch {
                        failures += 1
                    }
                }
            }
        }
        // The anchor: the same number of node hashes (SHA-256 of 0x01 ‖ 64 bytes) done by libsodium directly.
        let hashes = proofs.reduce(0) { $0 + $1.count } * rounds
        var input = [UInt8](repeating: 1, count: 65)
        var output = [UInt8](repeating: 0, count: 32)
        let raw = clock.measure {
            for _ in 0..<hashes {
                crypto_hash_sha256(&output, input, 65)
                input[1] = output[0]
            }
        }
        let count = Double(indexes.count * rounds)
        print(
            String(
                format:
                    "inclusion verification: %.2f µs per proof (target < 1,000 µs); raw SHA-256 of its nodes %.2f µs; ratio %.2f%@",
                verify.seconds / count * 1e6,
                raw.seconds / count * 1e6,
                verify.seconds / raw.seconds,
                failures == 0 ? "" : " — \(failures) FAILED"
            )
        )
    }

    static func sdk(url: URL, token: String) async throws {
        var writerConfiguration = try await Client.register(token: token, clientName: "bench-writer", apiURL: url)
        var off = writerConfiguration
        off.keyLog = .trustingTheServer()
        // Verification as a profile's client does it: its key log state kept in a file beside the configuration.
        let stateFolder = FileManager.default.temporaryDirectory.appending(path: "keylog-bench-\(UUID())")
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: stateFolder) }
        writerConfiguration.keyLog.state = KeyLogFileState(url: stateFolder.appending(path: "keylog.json"))
        let verifying = Client(configuration: writerConfiguration)
        let trusting = Client(configuration: off)
        var readers: [UUID] = []
        for index in 0..<60 {
            readers.append(
                try await Client.register(token: token, clientName: "bench-reader-\(index)", apiURL: url).clientID
            )
        }
        _ = try await verifying.clientInfo(of: readers[0])  // pins the log key and checks its own history once
        let clock = ContinuousClock()
        // On and off interleaved call by call (the order swapped every call), each call timed on its own and summed
        // per side: a slow moment of this two-core machine lands on both sides alike instead of on one side's round.
        var spent: [Bool: (share: Duration, lookup: Duration)] = [true: (.zero, .zero), false: (.zero, .zero)]
        var shares = 0
        var lookups = 0
        var turn = 0
        func sides() -> [Bool] {
            turn += 1
            return turn.isMultiple(of: 2) ? [true, false] : [false, true]
        }
        // Round 0 warms up and is not counted: the first contact with each reader saves its key-leaf floor durably,
        // once per reader and process.
        for round in 0..<6 {
            if round == 1 { (spent, shares, lookups) = ([true: (.zero, .zero), false: (.zero, .zero)], 0, 0) }
            for reader in readers.prefix(20) {
                for on in sides() {
                    let client = on ? verifying : trusting
                    let time = try await clock.measure {
                        try await client.share(type: "bench-\(round)-\(on)", readerID: reader)
                    }
                    spent[on]?.share += time
                }
                shares += 1
            }
            for _ in 0..<4 {
                for reader in readers {
                    for on in sides() {
                        let client = on ? verifying : trusting
                        let time = try await clock.measure { _ = try await client.clientInfo(of: reader) }
                        spent[on]?.lookup += time
                    }
                    lookups += 1
                }
            }
        }
        func rate(_ count: Int, _ time: Duration?) -> Double { Double(count) / max(time?.seconds ?? 1, 1e-9) }
        let on = (share: rate(shares, spent[true]?.share), lookup: rate(lookups, spent[true]?.lookup))
        let off2 = (share: rate(shares, spent[false]?.share), lookup: rate(lookups, spent[false]?.lookup))
        print(
            String(
                format: "SDK share: %.0f/s verifying keys, %.0f/s trusting the server; ratio %.2f (target ≥ 0.90)",
                on.share,
                off2.share,
                on.share / off2.share
            )
        )
        print(
            String(
                format: "SDK key lookup: %.0f/s verifying, %.0f/s trusting; ratio %.2f (target ≥ 0.90)",
                on.lookup,
                off2.lookup,
                on.lookup / off2.lookup
            )
        )
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
