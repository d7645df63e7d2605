// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import StrongroomCrypto

#if canImport(Glibc)
import Glibc
#endif

@Suite("Write-behind: the file cipher's overlapped writes")
struct WriteBehindTests {
    @Test("writes every buffer in order, hands back empty buffers with capacity")
    func writesInOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "write-behind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "out").path
        var expected: [UInt8] = []
        do {
            let file = try BlockingFile.createExclusive(path)
            let writer = WriteBehind(descriptor: file.descriptor, wipes: true)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(4096)
            for round in 0..<50 {
                buffer.append(contentsOf: (0..<(round * 37 + 1)).map { UInt8(truncatingIfNeeded: $0 &+ round) })
                expected.append(contentsOf: buffer)
                try writer.write(&buffer)
                #expect(buffer.isEmpty)
                #expect(buffer.capacity >= 4096)
            }
            try writer.finish()
        }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }

    @Test("a failed write (a full disk) is a typed error, from the next write or from finish")
    func writeFailure() throws {
        let descriptor = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        let file = BlockingFile(descriptor: descriptor)
        let writer = WriteBehind(descriptor: file.descriptor, wipes: false)
        var buffer = [UInt8](repeating: 1, count: 1000)
        try writer.write(&buffer)
        writer.waitForPendingWrites()
        buffer = [UInt8](repeating: 2, count: 1000)
        #expect(throws: CryptoError.self) { try writer.write(&buffer) }
        let error = #expect(throws: CryptoError.self) { try writer.finish() }
        #expect(error?.code == .io)
    }
}
