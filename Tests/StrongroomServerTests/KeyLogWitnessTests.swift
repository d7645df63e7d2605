// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HummingbirdTesting
import Logging
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWitness
import Synchronization
import Testing

/// Key log witnesses (C2SP tlog-witness and tlog-cosignature): the witness's add-checkpoint rules, and a server that
/// forks its log caught by clients that require a witness's cosignature.
@Suite struct KeyLogWitnessTests {
    /// A log of `leaves` leaves signed by `signer`, and its checkpoint note.
    static func note(_ tree: MerkleTree, _ signer: NoteSigner, size: UInt64) throws -> SignedNote {
        let root = try #require(tree.root(size: size))
        return try signer.sign(LogCheckpoint(origin: signer.verifierKey.name, size: size, root: root).text)
    }

    static func body(old: UInt64, proof: [MerkleHash], note: SignedNote) -> String {
        "old \(old)\n" + proof.map { Data($0.bytes).base64EncodedString() + "\n" }.joined() + "\n" + note.encoded
    }

    @Test(
        "add-checkpoint: unknown log 404, foreign signature 403, old past size 400, wrong old 409 with the size, a bad proof 422, a fork 409; a good one is cosigned and remembered across restarts"
    )
    func protocolRules() async throws {
        try await withTemporaryDirectory { directory in
            let signer = try NoteSigner(name: "example.com/log", key: SigningPrivateKey())
            let stranger = try NoteSigner(name: "example.com/log", key: SigningPrivateKey())
            let other = try NoteSigner(name: "example.com/other", key: SigningPrivateKey())
            var tree = MerkleTree()
            for index in 0..<10 { tree.append(.leaf(Data("leaf \(index)".utf8))) }
            let witness = try KeyLogWitness(
                directory: directory.path,
                name: "witness.test/w",
                logKeys: [signer.verifierKey],
                clock: SystemWallClock()
            )
            let four = try Self.note(tree, signer, size: 4)
            #expect(
                await witness.addCheckpoint(Self.body(old: 0, proof: [], note: try Self.note(tree, other, size: 4)))
                    .status == 404
            )
            #expect(
                await witness.addCheckpoint(Self.body(old: 0, proof: [], note: try Self.note(tree, stranger, size: 4)))
                    .status == 403
            )
            #expect(await witness.addCheckpoint(Self.body(old: 5, proof: [], note: four)).status == 400)
            #expect(await witness.addCheckpoint("old 0\n").status == 400)
            let first = await witness.addCheckpoint(Self.body(old: 0, proof: [], note: four))
            #expect(first.status == 200)
            let cosigned = try SignedNote(parsing: four.text + "\n" + first.body)
            #expect(try witness.cosigner.key.cosignatureTime(on: cosigned) != nil)

            let seven = try Self.note(tree, signer, size: 7)
            let stale = await witness.addCheckpoint(Self.body(old: 0, proof: [], note: seven))
            #expect(stale.status == 409 && stale.body == "4\n" && stale.contentType == "text/x.tlog.size")
            var wrong = try #require(tree.consistencyProof(oldSize: 4, newSize: 7))
            wrong[0] = MerkleHash.leaf(Data("forged".utf8))
            #expect(await witness.addCheckpoint(Self.body(old: 4, proof: wrong, note: seven)).status == 422)
            let proof = try #require(tree.consistencyProof(oldSize: 4, newSize: 7))
            #expect(await witness.addCheckpoint(Self.body(old: 4, proof: proof, note: seven)).status == 200)

            // The same size with another root: a fork.
            var forked = MerkleTree()
            for index in 0..<7 { forked.append(.leaf(Data("fork \(index)".utf8))) }
            #expect(
                await witness.addCheckpoint(Self.body(old: 7, proof: [], note: try Self.note(forked, signer, size: 7)))
                    .status == 409
            )

            // A restart keeps what it cosigned.
            let again = try KeyLogWitness(
                directory: directory.path,
                name: "witness.test/w",
                logKeys: [signer.verifierKey],
                clock: SystemWallClock()
            )
            #expect(again.cosigner.key == witness.cosigner.key)
            #expect(await again.addCheckpoint(Self.body(old: 4, proof: proof, note: seven)).body == "7\n")

            // Replays of the checkpoint it holds are cosigned again without a write: the state file (replaced
            // atomically on every write, so a new inode) stays the one it was.
            let state = directory.path + "/witness-state.json"
            let before = try FileManager.default.attributesOfItem(atPath: state)
            for _ in 0..<20 {
                #expect(await again.addCheckpoint(Self.body(old: 7, proof: [], note: seven)).status == 200)
            }
            let after = try FileManager.default.attributesOfItem(atPath: state)
            #expect(after[.systemFileNumber] as? Int == before[.systemFileNumber] as? Int)
            #expect(after[.modificationDate] as? Date == before[.modificationDate] as? Date)
        }
    }

    @Test(
        "clients requiring a witness accept its cosigned log; a fork then the real log leaves the real one uncosigned (notWitnessed)",
        arguments: [true, false]
    )
    func splitView(configured: Bool) async throws {
        try await withTemporaryDirectory { directory in
            var logger = Logger(label: "witness-test")
            logger.logLevel = .critical
            let logKey = try await Self.logKey()
            let witness = try KeyLogWitness(
                directory: directory.path,
                name: "witness.test/w",
                logKeys: [logKey],
                clock: SystemWallClock()
            )
            let app = buildWitnessApplication(
                witness: witness,
                host: "127.0.0.1",
                port: 0,
                portFile: nil,
                logger: logger
            )
            try await app.test(.live) { client in
                let url = "http://127.0.0.1:\(try #require(client.port))"
                let endpoint = KeyLogWitnessEndpoint(key: witness.cosigner.key, url: url)
                let malice = KeyLogMalice()
                try await TestServer.run(
                    keyLogMalice: malice,
                    keyLogWitnesses: [endpoint],
                    tokenKey: Self.tokenKey
                ) { api in
                    // Configured, or by default: adopted from the server's advertisement on first use.
                    let states = Mutex<[KeyLogMemoryState]>([])
                    func register(_ name: String) async throws -> Client {
                        let state = KeyLogMemoryState()
                        states.withLock { $0.append(state) }
                        return try await api.sdkClient(name) {
                            $0.keyLog.state = state
                            if configured {
                                $0.keyLog.witnesses = [witness.cosigner.key]
                                $0.keyLog.requiredCosignatures = 1
                            }
                        }
                    }
                    let writer = try await register("writer")
                    let reader = try await register("reader")
                    try await writer.share(type: "kt", readerID: reader.configuration.clientID)
                    let seen = try await writer.keyLogCheckpoint()
                    let pinned = await states.withLock { $0 }[0].load()?.witnesses
                    #expect(pinned == (configured ? nil : [witness.cosigner.key.description]))

                    malice.insertFakeLeaf(at: seen.size)
                    #expect(try await writer.keyLogCheckpoint().size == seen.size + 1, "the witness cosigns the fork")
                    _ = try await register("newcomer")  // the real log grows differently
                    malice.insertFakeLeaf(at: nil)
                    let fresh = try await register("fresh")
                    let refused = await #expect(throws: ClientError.self) {
                        try await fresh.clientInfo(of: reader.configuration.clientID)
                    }
                    #expect(refused?.code == .notWitnessed, "the real log can no longer be cosigned")
                    let caught = await #expect(throws: ClientError.self) {
                        try await writer.clientInfo(of: reader.configuration.clientID)
                    }
                    #expect(caught?.code == .notWitnessed || caught?.code == .logInconsistent)
                }
            }
        }
    }

    /// The token key of the split-view test's server, so the witness can be told the log's key before it starts.
    static let tokenKey = SecureRandom.bytes(count: 32)

    static func logKey() async throws -> NoteVerifierKey {
        try NoteVerifierKey(try keyLogVerifierKey(tokenKey: tokenKey))
    }
}
