// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Prints Strongroom's figures beside their anchors (raw libsodium on the same bytes, same process, same run).
/// Usage: StrongroomBenchmarks [file-MiB]   (default 256)
@main
struct StrongroomBenchmarks {
    static func main() async throws {
        let fileMiB = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 256
        #if DEBUG
        print("warning: debug build; run Scripts/bench.sh for release figures")
        #endif
        print(
            "Strongroom crypto benchmark — \(ProcessInfo.processInfo.activeProcessorCount) cores, file \(fileMiB) MiB"
        )
        print("")
        try await fileBenchmarks(mebibytes: fileMiB)
        print("")
        try fieldBenchmarks()
        try encodingBenchmarks()
        print("")
        try hybridWrapBenchmarks()
    }

    static func fileBenchmarks(mebibytes: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "strongroom-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appending(path: "plain.bin")
        let sealed = directory.appending(path: "plain.e3db")
        let opened = directory.appending(path: "opened.bin")
        let copied = directory.appending(path: "copied.bin")
        // Write the plaintext 1 MiB at a time so that making it does not raise the peak RSS.
        let piece = SecureRandom.data(count: 1 << 20)
        FileManager.default.createFile(atPath: plain.path, contents: nil)
        let handle = try FileHandle(forWritingTo: plain)
        for _ in 0..<mebibytes { handle.write(piece) }
        try handle.close()
        let size = Int64(mebibytes) << 20
        let key = AccessKey()
        let clock = ContinuousClock()
        let rssBefore = peakResidentMiB()

        let encrypt = try await clock.measure {
            _ = try await FileCipher.encrypt(contentsOf: plain, to: sealed, with: key)
        }
        let decrypt = try await clock.measure {
            _ = try await FileCipher.decrypt(contentsOf: sealed, to: opened, with: key)
        }
        let rssAfter = peakResidentMiB()
        let copy = try clock.measure { try RawIO.copy(from: plain.path, to: copied.path) }

        // The same streams in memory, fed 1 MiB at a time: the crypto alone, comparable with raw secretstream.
        var output: [UInt8] = []
        output.reserveCapacity((1 << 20) + 2 * FileFormat.chunkSize + 256)
        let memoryEncrypt = clock.measure {
            var encryptor = FileEncryptor(accessKey: key)
            piece.withUnsafeBytes { bytes in
                for _ in 0..<mebibytes {
                    encryptor.update(bytes, into: &output)
                    output.removeAll(keepingCapacity: true)
                }
            }
            _ = encryptor.finalize(into: &output)
        }
        // Decrypt a 4 MiB stream repeatedly (one of the full size would have to sit in memory).
        var small: [UInt8] = []
        var smallEncryptor = FileEncryptor(accessKey: key)
        piece.withUnsafeBytes { bytes in for _ in 0..<4 { smallEncryptor.update(bytes, into: &small) } }
        _ = smallEncryptor.finalize(into: &small)
        let rounds = max(1, mebibytes / 4)
        let memoryDecrypt = try clock.measure {
            for _ in 0..<rounds {
                var decryptor = FileDecryptor(accessKey: key)
                try small.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let end = min(offset + (1 << 20), bytes.count)
                        try decryptor.update(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), into: &output)
                        output.removeAll(keepingCapacity: true)
                        offset = end
                    }
                }
                try decryptor.finalize(into: &output)
                output.removeAll(keepingCapacity: true)
            }
        }

        let block = [UInt8](piece.prefix(65_536))
        let blocks = mebibytes * 16
        var pushed: Int64 = 0
        let push = clock.measure { pushed = RawSodium.secretstreamPush(blocks: blocks, block: block) }
        let stream = RawSodium.makeStream(block: block)
        var pulled: Int64 = 0
        let pull = clock.measure { pulled = RawSodium.secretstreamPull(stream, rounds: blocks / 64) }
        var md5 = Insecure.MD5()
        let md5Time = clock.measure { for _ in 0..<blocks { md5.update(data: block) } }
        _ = md5.finalize()

        let rawPush = megabytesPerSecond(pushed, push)
        let rawPull = megabytesPerSecond(pulled, pull)
        let rawMD5 = megabytesPerSecond(Int64(blocks) * 65_536, md5Time)
        let rawCopy = megabytesPerSecond(size, copy)
        let pushPlusMD5 = 1 / (1 / rawPush + 1 / rawMD5)
        let memoryIn = megabytesPerSecond(size, memoryEncrypt)
        let memoryOut = megabytesPerSecond(Int64(rounds * 4) << 20, memoryDecrypt)
        print("in memory, 1 MiB pieces (the crypto alone):")
        row(
            "  stream encrypt (+MD5 checksum)",
            ours: memoryIn,
            anchor: rawPush,
            unit: "MB/s",
            anchorLabel: "raw secretstream push"
        )
        row(
            "  stream encrypt (+MD5 checksum)",
            ours: memoryIn,
            anchor: pushPlusMD5,
            unit: "MB/s",
            anchorLabel: "raw push + raw MD5"
        )
        row("  stream decrypt", ours: memoryOut, anchor: rawPull, unit: "MB/s", anchorLabel: "raw secretstream pull")
        print("disk to disk, \(mebibytes) MiB (read, crypto, write, fsync, rename):")
        row(
            "  file encrypt",
            ours: megabytesPerSecond(size, encrypt),
            anchor: rawPush,
            unit: "MB/s",
            anchorLabel: "raw secretstream push"
        )
        row(
            "  file decrypt",
            ours: megabytesPerSecond(size, decrypt),
            anchor: rawPull,
            unit: "MB/s",
            anchorLabel: "raw secretstream pull"
        )
        row(
            "  file decrypt",
            ours: megabytesPerSecond(size, decrypt),
            anchor: rawCopy,
            unit: "MB/s",
            anchorLabel: "raw read+write+fsync copy"
        )
        print(String(format: "  raw MD5 (swift-crypto): %.1f MB/s", rawMD5))
        if let rssBefore, let rssAfter {
            print(
                String(
                    format: "  peak RSS: %.1f MiB before the file runs, %.1f MiB after (whole process)",
                    rssBefore,
                    rssAfter
                )
            )
        }
    }

    static func fieldBenchmarks() throws {
        let key = AccessKey()
        var summary: [String] = []
        for (label, size, iterations) in [("1 KiB", 1024, 40_000), ("64 KiB", 65_536, 1_500)] {
            let text = String(repeating: "a", count: size)
            let bytes = [UInt8](text.utf8)
            let rawKey = [UInt8](repeating: 3, count: 32)
            let nonce = [UInt8](repeating: 4, count: 24)
            var box = [UInt8](repeating: 0, count: size + 16)
            var opened = [UInt8](repeating: 0, count: size)
            let raw = opsPerSecond(iterations: iterations) {
                RawSodium.secretbox(bytes, into: &box, key: rawKey, nonce: nonce)
            }
            let ours = opsPerSecond(iterations: iterations) {
                _ = FieldCipher.encrypt(text, with: key).wireFormat
            }
            let wire = FieldCipher.encrypt(text, with: key).wireFormat
            let rawOpen = opsPerSecond(iterations: iterations) {
                _ = RawSodium.secretboxOpen(box, into: &opened, key: rawKey, nonce: nonce)
            }
            let oursOpen = try opsPerSecond(iterations: iterations) {
                _ = try FieldCipher.decrypt(EncryptedField(wireFormat: wire), with: key)
            }
            // The format's own limit: base64url-decode the four parts (the fast public decoder) and open two boxes
            // with raw libsodium, nothing else.
            let wireParts = wire.split(separator: ".").map(String.init)
            let keyBox = [UInt8](repeating: 1, count: 48)
            var dataKey = [UInt8](repeating: 0, count: 32)
            let formatLimit = try opsPerSecond(iterations: iterations) {
                for part in wireParts { _ = try Base64URL.decode(part) }
                _ = RawSodium.secretboxOpen(keyBox, into: &dataKey, key: rawKey, nonce: nonce)
                _ = RawSodium.secretboxOpen(box, into: &opened, key: rawKey, nonce: nonce)
            }
            let sealOnly = opsPerSecond(iterations: iterations) { _ = FieldCipher.encrypt(text, with: key) }
            var textBuffer = [CChar](repeating: 0, count: (size + 16) * 4 / 3 + 4)
            let rawToText = opsPerSecond(iterations: iterations) {
                RawSodium.secretboxToText(bytes, into: &box, text: &textBuffer, key: rawKey, nonce: nonce)
            }
            row(
                "field seal \(label) (binary parts)",
                ours: sealOnly,
                anchor: raw,
                unit: "op/s",
                anchorLabel: "raw crypto_secretbox_easy"
            )
            row(
                "field encrypt \(label) (wire text)",
                ours: ours,
                anchor: raw,
                unit: "op/s",
                anchorLabel: "raw crypto_secretbox_easy"
            )
            row(
                "field encrypt \(label) (wire text)",
                ours: ours,
                anchor: rawToText,
                unit: "op/s",
                anchorLabel: "raw secretbox + raw base64"
            )
            row(
                "field decrypt \(label) (from wire)",
                ours: oursOpen,
                anchor: rawOpen,
                unit: "op/s",
                anchorLabel: "raw crypto_secretbox_open"
            )
            row(
                "field decrypt \(label) (from wire)",
                ours: oursOpen,
                anchor: formatLimit,
                unit: "op/s",
                anchorLabel: "format limit: base64url + 2 opens"
            )
            summary.append(
                String(
                    format: "decrypt %@ %.0f%% of raw open (format limit %.0f%%)",
                    label,
                    oursOpen / rawOpen * 100,
                    formatLimit / rawOpen * 100
                )
            )
        }
        print("summary: field " + summary.joined(separator: "; ") + " (target >= 45% at 64 KiB)")
    }
}

extension StrongroomBenchmarks {
    /// Where a field operation's time goes: the base64url the wire format requires, on its own.
    static func encodingBenchmarks() throws {
        let bytes = SecureRandom.data(count: 65_552)
        let text = Base64URL.encode(bytes)
        let encode = opsPerSecond(iterations: 2_000) { _ = Base64URL.encode(bytes) }
        let decode = try opsPerSecond(iterations: 2_000) { _ = try Base64URL.decode(text) }
        print(
            String(
                format: "base64url of 64 KiB ciphertext: encode %.0f MB/s, decode %.0f MB/s (of binary bytes)",
                encode * 65_552 / 1e6,
                decode * 65_552 / 1e6
            )
        )
    }
}
