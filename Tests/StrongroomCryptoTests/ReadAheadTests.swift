// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTesting
import Testing

@testable import StrongroomCrypto

@Suite("Read-ahead: the file cipher's overlapped reads")
struct ReadAheadTests {
    @Test("hands over every byte in order, in pieces no larger than asked, then nil on every later call")
    func readsInOrder() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending(path: "in").path
            let expected = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            try Data(expected).write(to: URL(fileURLWithPath: path))
            let file = try BlockingFile.openForReading(path)
            let reader = ReadAhead(descriptor: file.descriptor, pieceSize: 999, wipes: true)
            defer { reader.finish() }
            var received: [UInt8] = []
            while let count = try reader.next({ piece in
                received.append(contentsOf: piece)
                return piece.count
            }) {
                #expect((1...999).contains(count))
            }
            #expect(received == expected)
            #expect(try reader.next { $0.count } == nil)
        }
    }

    @Test("an error from the caller's work ends the reading: later calls return nil instead of waiting")
    func bodyFailure() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending(path: "in").path
            try Data(count: 10_000).write(to: URL(fileURLWithPath: path))
            let file = try BlockingFile.openForReading(path)
            let reader = ReadAhead(descriptor: file.descriptor, pieceSize: 1000, wipes: false)
            defer { reader.finish() }
            let error = #expect(throws: CryptoError.self) {
                try reader.next { _ throws(CryptoError) -> Int in throw CryptoError(.authenticationFailed, "test") }
            }
            #expect(error?.code == .authenticationFailed)
            #expect(try reader.next { $0.count } == nil)
        }
    }

    @Test("an empty file ends at once")
    func emptyFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending(path: "empty").path
            try Data().write(to: URL(fileURLWithPath: path))
            let file = try BlockingFile.openForReading(path)
            let reader = ReadAhead(descriptor: file.descriptor, pieceSize: 64, wipes: false)
            defer { reader.finish() }
            #expect(try reader.next { $0.count } == nil)
        }
    }

    @Test("a failed read is a typed error, and the file cipher then leaves no output")
    func readFailure() async throws {
        try await withTemporaryDirectory { directory in
            // A directory opens for reading, but read(2) fails with EISDIR.
            let folder = directory.appending(path: "folder")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            let file = try BlockingFile.openForReading(folder.path)
            let reader = ReadAhead(descriptor: file.descriptor, pieceSize: 4096, wipes: false)
            defer { reader.finish() }
            let error = #expect(throws: CryptoError.self) { try reader.next { $0.count } }
            #expect(error?.code == .io)
            #expect(try reader.next { $0.count } == nil)

            let key = AccessKey()
            let destination = directory.appending(path: "out.e3db")
            let cipherError = await #expect(throws: CryptoError.self) {
                try await FileCipher.encrypt(contentsOf: folder, to: destination, with: key)
            }
            #expect(cipherError?.code == .io)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["folder"])
        }
    }
}
