// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

/// The large-file format "3" against the Python SDK (`Vectors/e3db-python/files.json`), plus every way a file can
/// be damaged.
@Suite struct FileCipherTests {
    struct File: Decodable {
        struct Case: Decodable {
            let plaintextSize: Int
            let file: String
            let size: Int64
            let checksum: String
        }
        let accessKey: String
        let cases: [Case]
    }

    let file: File
    let accessKey: AccessKey

    init() throws {
        file = try Vectors.load(File.self, "e3db-python/files.json")
        accessKey = try AccessKey(rawRepresentation: Base64URL.decodeSecret(file.accessKey))
    }

    /// Feeds `ciphertext` to a decryptor in pieces of `pieceSize` bytes.
    func decrypt(_ ciphertext: [UInt8], with key: AccessKey, pieceSize: Int = 4096) throws(CryptoError) -> [UInt8] {
        var decryptor = FileDecryptor(accessKey: key)
        var output: [UInt8] = []
        var offset = 0
        while offset < ciphertext.count {
            let end = min(offset + pieceSize, ciphertext.count)
            try decryptor.update(ciphertext[offset..<end], into: &output)
            offset = end
        }
        try decryptor.finalize(into: &output)
        return output
    }

    func encrypt(
        _ plaintext: [UInt8],
        with key: AccessKey,
        pieceSize: Int = 5000,
        computesChecksum: Bool = true
    ) -> ([UInt8], FileEncryptor.Summary) {
        var encryptor = FileEncryptor(accessKey: key, computesChecksum: computesChecksum)
        var output: [UInt8] = []
        var offset = 0
        while offset < plaintext.count {
            let end = min(offset + pieceSize, plaintext.count)
            encryptor.update(plaintext[offset..<end], into: &output)
            offset = end
        }
        let summary = encryptor.finalize(into: &output)
        return (output, summary)
    }

    @Test("opens every file the Python SDK wrote, whatever the piece size", arguments: [1, 17, 4096, 65553, 1 << 20])
    func decryptsPython(pieceSize: Int) throws {
        for item in file.cases {
            let ciphertext = try [UInt8](Vectors.bytes("e3db-python/" + item.file))
            #expect(try decrypt(ciphertext, with: accessKey, pieceSize: pieceSize) == filePattern(item.plaintextSize))
        }
    }

    @Test("writes files with Python's sizes and a correct MD5 checksum")
    func encryptsLikePython() throws {
        for item in file.cases {
            let plaintext = filePattern(item.plaintextSize)
            let (ciphertext, summary) = encrypt(plaintext, with: accessKey)
            #expect(summary.size == item.size)
            #expect(Int64(ciphertext.count) == item.size)
            #expect(summary.plaintextSize == Int64(item.plaintextSize))
            #expect(FileFormat.encryptedSize(forPlaintextSize: Int64(item.plaintextSize)) == item.size)
            let md5 = md5Base64(ciphertext)
            #expect(summary.checksum == md5)
            #expect(try decrypt(ciphertext, with: accessKey) == plaintext)
        }
    }

    @Test("without a checksum: the same format and sizes, no MD5")
    func encryptsWithoutChecksum() throws {
        for item in file.cases {
            let plaintext = filePattern(item.plaintextSize)
            let (ciphertext, summary) = encrypt(plaintext, with: accessKey, computesChecksum: false)
            #expect(summary.checksum == nil)
            #expect(summary.size == item.size)
            #expect(Int64(ciphertext.count) == item.size)
            #expect(try decrypt(ciphertext, with: accessKey) == plaintext)
        }
    }

    @Test("a damaged file is a typed error, never plaintext", arguments: Damage.allCases)
    func damaged(damage: Damage) throws {
        let plaintext = filePattern(200_000)
        let (ciphertext, _) = encrypt(plaintext, with: accessKey)
        let broken = damage.apply(to: ciphertext)
        let error = #expect(throws: CryptoError.self) { try decrypt(broken, with: accessKey) }
        #expect(error?.code == damage.expectedCode, "\(damage)")
    }

    @Test("a chunk that does not authenticate adds nothing: the output keeps exactly the chunks before it")
    func failedChunkAddsNothing() throws {
        let plaintext = filePattern(200_000)
        var (ciphertext, _) = encrypt(plaintext, with: accessKey)
        ciphertext[Damage.header + FileFormat.chunkSize + 40] ^= 0x80  // the second chunk
        var decryptor = FileDecryptor(accessKey: accessKey)
        var output: [UInt8] = []
        output.reserveCapacity(ciphertext.count)  // room to spare: a failed chunk must not leave bytes in it
        let error = #expect(throws: CryptoError.self) { try decryptor.update(ciphertext[...], into: &output) }
        #expect(error?.code == .authenticationFailed)
        #expect(output == Array(plaintext[..<FileFormat.blockSize]))
    }

    @Test("a wrong access key opens nothing")
    func wrongKey() throws {
        let ciphertext = try [UInt8](Vectors.bytes("e3db-python/files/file-10.e3db"))
        let error = #expect(throws: CryptoError.self) { try decrypt(ciphertext, with: AccessKey()) }
        #expect(error?.code == .authenticationFailed)
    }

    @Test("file to file: round trip, progress, and no temporary files left")
    func fileRoundTrip() async throws {
        try await withTemporaryDirectory { directory in
            let plaintext = Data(filePattern(3 * 1_048_576 + 123))
            let source = directory.appending(path: "plain.bin")
            let encrypted = directory.appending(path: "plain.bin.e3db")
            let decrypted = directory.appending(path: "roundtrip.bin")
            try plaintext.write(to: source)
            let progress = ProgressLog()
            let summary = try await FileCipher.encrypt(
                contentsOf: source,
                to: encrypted,
                with: accessKey,
                progress: { progress.record($0) }
            )
            #expect(summary.plaintextSize == Int64(plaintext.count))
            #expect(progress.values.last == Int64(plaintext.count))
            #expect(progress.values == progress.values.sorted())
            let written = try await FileCipher.decrypt(contentsOf: encrypted, to: decrypted, with: accessKey)
            #expect(written == Int64(plaintext.count))
            #expect(try Data(contentsOf: decrypted) == plaintext)
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(names == ["plain.bin", "plain.bin.e3db", "roundtrip.bin"])
        }
    }

    @Test("a failed decryption leaves no plaintext and no temporary file")
    func failedDecryptionLeavesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let (ciphertext, _) = encrypt(filePattern(300_000), with: accessKey)
            // Cut at a chunk boundary: every remaining chunk authenticates, but the final one is missing.
            let truncated = Data(ciphertext.prefix(Damage.header + 4 * FileFormat.chunkSize))
            let source = directory.appending(path: "cut.e3db")
            try truncated.write(to: source)
            let destination = directory.appending(path: "out.bin")
            let error = await #expect(throws: CryptoError.self) {
                try await FileCipher.decrypt(contentsOf: source, to: destination, with: accessKey)
            }
            #expect(error?.code == .truncated)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cut.e3db"])
        }
    }

    @Test("an existing destination is never overwritten")
    func existingDestination() async throws {
        try await withTemporaryDirectory { directory in
            let source = directory.appending(path: "a")
            try Data("x".utf8).write(to: source)
            let error = await #expect(throws: CryptoError.self) {
                try await FileCipher.encrypt(contentsOf: source, to: source, with: accessKey)
            }
            #expect(error?.code == .exists)
            #expect(try Data(contentsOf: source) == Data("x".utf8))
        }
    }

    @Test("data after a full final chunk is a format error")
    func trailingDataAfterFullFinalChunk() throws {
        var (ciphertext, _) = encrypt(filePattern(2 * FileFormat.blockSize), with: accessKey)
        ciphertext.append(contentsOf: [0, 1, 2])
        let error = #expect(throws: CryptoError.self) { try decrypt(ciphertext, with: accessKey) }
        #expect(error?.code == .invalidFormat)
    }

    @Test("a cancelled task stops and removes its partial output")
    func cancellation() async throws {
        try await withTemporaryDirectory { directory in
            let source = directory.appending(path: "big")
            try Data(count: 4 << 20).write(to: source)
            let destination = directory.appending(path: "big.e3db")
            let key = accessKey
            // The first progress report waits until the test has cancelled, so the outcome never depends on timing.
            let gate = DispatchSemaphore(value: 0)
            let task = Task {
                try await FileCipher.encrypt(contentsOf: source, to: destination, with: key) { _ in gate.wait() }
            }
            task.cancel()
            gate.signal()
            let error = await #expect(throws: CryptoError.self) { try await task.value }
            #expect(error?.code == .cancelled)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["big"])
        }
    }
}

/// Thread-safe log of progress values.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int64] = []
    func record(_ value: Int64) { lock.withLock { storage.append(value) } }
    var values: [Int64] { lock.withLock { storage } }
}

/// Ways to damage a ciphertext of 200,000 plaintext bytes (4 chunks), and the code each must produce.
enum Damage: CaseIterable, Sendable {
    case version, prologueKey, prologueNonce, streamHeader, firstChunk, lastChunkTag, swapChunks, dropLastChunk,
        truncateMidChunk, truncateHeader, appendGarbage, empty, duplicateChunk

    static let prologue = 100
    static let header = prologue + FileFormat.streamHeaderSize

    func apply(to bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let chunk = FileFormat.chunkSize
        switch self {
        case .version: bytes[0] = UInt8(ascii: "4")
        case .prologueKey: bytes[5] = bytes[5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        case .prologueNonce: bytes[80] = bytes[80] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        case .streamHeader: bytes[Self.prologue + 3] ^= 0x01
        case .firstChunk: bytes[Self.header + 40] ^= 0x80
        case .lastChunkTag: bytes[bytes.count - 20] ^= 0x01
        case .swapChunks:
            let first = Array(bytes[Self.header..<(Self.header + chunk)])
            let second = Array(bytes[(Self.header + chunk)..<(Self.header + 2 * chunk)])
            bytes.replaceSubrange(Self.header..<(Self.header + 2 * chunk), with: second + first)
        case .dropLastChunk: bytes.removeLast(bytes.count - (Self.header + 3 * chunk))
        case .truncateMidChunk: bytes.removeLast(1000)
        case .truncateHeader: bytes.removeLast(bytes.count - 110)
        case .appendGarbage: bytes.append(contentsOf: [1, 2, 3])
        case .empty: bytes = []
        case .duplicateChunk:
            let first = Array(bytes[Self.header..<(Self.header + chunk)])
            bytes.insert(contentsOf: first, at: Self.header + chunk)
        }
        return bytes
    }

    var expectedCode: CryptoError.Code {
        switch self {
        case .version: .unsupportedVersion
        // A cut or an addition inside the short final chunk changes that chunk, so it fails to authenticate.
        case .prologueKey, .prologueNonce, .firstChunk, .lastChunkTag, .swapChunks, .duplicateChunk, .streamHeader,
            .truncateMidChunk, .appendGarbage:
            .authenticationFailed
        case .dropLastChunk, .truncateHeader, .empty: .truncated
        }
    }
}
