// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

/// The one-pass download sink: ciphertext in, a new plaintext file out only when the whole file authenticated.
@Suite struct FileDecryptingWriterTests {
    let accessKey = AccessKey()

    func ciphertext(_ plaintext: [UInt8]) -> [UInt8] {
        var encryptor = FileEncryptor(accessKey: accessKey, computesChecksum: false)
        var output: [UInt8] = []
        plaintext.withUnsafeBytes { encryptor.update($0, into: &output) }
        _ = encryptor.finalize(into: &output)
        return output
    }

    /// Writes `bytes` to `writer` in pieces of `pieceSizes`, taken in turn.
    func feed(_ bytes: [UInt8], to writer: FileDecryptingWriter, pieceSizes: [Int]) throws(CryptoError) {
        var offset = 0
        var turn = 0
        while offset < bytes.count {
            let end = min(offset + pieceSizes[turn % pieceSizes.count], bytes.count)
            turn += 1
            let piece = Array(bytes[offset..<end])
            let failure = piece.withUnsafeBytes { raw -> CryptoError? in
                do throws(CryptoError) {
                    try writer.write(raw)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            offset = end
        }
    }

    @Test("pieces of any size in, the plaintext out, only after commit", arguments: [1, 4096, 65_553, 1 << 20])
    func roundTrip(pieceSize: Int) async throws {
        try await withTemporaryDirectory { directory in
            let plaintext = (0..<(2 * 65_536 + 999)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let destination = directory.appending(path: "out.bin")
            let writer = try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
            try feed(ciphertext(plaintext), to: writer, pieceSizes: [pieceSize])
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(try writer.commit() == Int64(plaintext.count))
            #expect(try [UInt8](Data(contentsOf: destination)) == plaintext)
            let attributes = try FileManager.default.attributesOfItem(atPath: destination.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.bin"])
        }
    }

    @Test("pieces that grow and shrink between writes (the buffer is made larger before decrypting, never during)")
    func changingPieces() async throws {
        try await withTemporaryDirectory { directory in
            let plaintext = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let destination = directory.appending(path: "out.bin")
            let writer = try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
            try feed(ciphertext(plaintext), to: writer, pieceSizes: [1000, 300_000, 7, 70_000, 1 << 20])
            #expect(try writer.commit() == Int64(plaintext.count))
            #expect(try [UInt8](Data(contentsOf: destination)) == plaintext)
        }
    }

    @Test("altered, cut short, another key or abandoned: a typed error and no file at all")
    func failuresLeaveNothing() async throws {
        try await withTemporaryDirectory { directory in
            let sealed = ciphertext((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
            let destination = directory.appending(path: "out.bin")
            do {
                var flipped = sealed
                flipped[Damage.header + 70_000] ^= 1
                let altered = try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
                let alteredError = #expect(throws: CryptoError.self) {
                    try feed(flipped, to: altered, pieceSizes: [8192])
                }
                #expect(alteredError?.code == .authenticationFailed)
                // The error ended the file: the rest of the stream and a commit are refused.
                #expect(throws: CryptoError.self) {
                    try feed(Array(sealed.suffix(1000)), to: altered, pieceSizes: [8192])
                }
                #expect(throws: CryptoError.self) { try altered.commit() }

                let cut = try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
                try feed(Array(sealed.prefix(Damage.header + 2 * FileFormat.chunkSize)), to: cut, pieceSizes: [8192])
                let cutError = #expect(throws: CryptoError.self) { try cut.commit() }
                #expect(cutError?.code == .truncated)

                let foreign = try FileDecryptingWriter(creatingFileAt: destination, accessKey: AccessKey())
                let foreignError = #expect(throws: CryptoError.self) {
                    try feed(sealed, to: foreign, pieceSizes: [8192])
                }
                #expect(foreignError?.code == .authenticationFailed)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
            }
            // The writers are released: their hidden files are gone and no destination appeared.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test(
        "released without a commit: nothing is left (the file is unnamed while written); an existing destination is refused"
    )
    func releaseAndExisting() async throws {
        try await withTemporaryDirectory { directory in
            let sealed = ciphertext(Array(repeating: 9, count: 150_000))
            let destination = directory.appending(path: "out.bin")
            do {
                let writer = try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
                try feed(Array(sealed.prefix(90_000)), to: writer, pieceSizes: [4096])
                // Half-way through, nothing has a name in the folder: a killed process could leave nothing behind.
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            do {
                let writer = try FileDecryptingWriter(creatingFileAt: destination, accessKey: AccessKey())
                #expect(throws: CryptoError.self) { try feed(sealed, to: writer, pieceSizes: [4096]) }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            try Data("keep me".utf8).write(to: destination)
            let error = #expect(throws: CryptoError.self) {
                try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
            }
            #expect(error?.code == .exists)
            #expect(try Data(contentsOf: destination) == Data("keep me".utf8))
        }
    }

    @Test("a destination that appears before the commit is never replaced")
    func destinationAppearsMeanwhile() async throws {
        try await withTemporaryDirectory { directory in
            let destination = directory.appending(path: "out.bin")
            do {
                let writer = try FileDecryptingWriter(creatingFileAt: destination, accessKey: accessKey)
                try feed(ciphertext(Array(repeating: 7, count: 100_000)), to: writer, pieceSizes: [8192])
                try Data("someone else's".utf8).write(to: destination)
                let error = #expect(throws: CryptoError.self) { try writer.commit() }
                #expect(error?.code == .exists)
            }
            #expect(try Data(contentsOf: destination) == Data("someone else's".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.bin"])
        }
    }
}
