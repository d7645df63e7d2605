// Strongroom — SPDX-License-Identifier: Apache-2.0

import CFileSync
import Foundation
import StrongroomTesting
import Testing

@testable import StrongroomCrypto

#if canImport(Glibc)
import Glibc
#endif

@Suite("Write-behind: the file cipher's overlapped writes")
struct WriteBehindTests {
    @Test("writes every buffer in order, hands back empty buffers with capacity")
    func writesInOrder() async throws {
        try await withTemporaryDirectory { directory in
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
    }

    @Test("a file that will be synced has its writeback started stride by stride, and is written whole")
    func startsWriteback() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending(path: "out").path
            let stride = Int(WriteBehind.writebackStride)
            let chunk = 3 << 20  // not a divisor of the stride: a writeback range spans a buffer's end
            let total = 2 * stride + chunk
            var expected: [UInt8] = []
            expected.reserveCapacity(total)
            do {
                let file = try BlockingFile.createExclusive(path)
                let writer = WriteBehind(descriptor: file.descriptor, wipes: false, startsWriteback: true)
                var buffer: [UInt8] = []
                var round = 0
                while expected.count < total {
                    // Each buffer its own byte, so a buffer written twice, dropped or out of order shows.
                    buffer.append(
                        contentsOf: repeatElement(UInt8(round + 1), count: min(chunk, total - expected.count))
                    )
                    expected.append(contentsOf: buffer)
                    try writer.write(&buffer)
                    round += 1
                }
                try writer.finish()
                // 3, 6, 9 MiB: the first stride starts at 9; 12, 15, 18: the second at 18; 21 and 22 wait for the fsync.
                #expect(writer.writebackStarted == Int64(18 << 20))
                try file.sync()
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected))

            let unsynced = try BlockingFile.createExclusive(path + ".temporary")
            let unsyncedWriter = WriteBehind(descriptor: unsynced.descriptor, wipes: false)
            #expect(unsyncedWriter.writebackStarted == nil)
        }
    }

    @Test("starting writeback is a hint: 0 on a regular file, -1 for a bad range or descriptor, and writes go on")
    func writebackHint() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "writeback-\(UUID().uuidString)").path
        defer { unlink(path) }
        let file = try BlockingFile.createExclusive(path)
        let descriptor = file.descriptor
        let bytes = [UInt8](repeating: 7, count: 1 << 16)
        #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        #expect(cfilesync_start_writeback(descriptor, 0, 1 << 16) == 0)
        #expect(cfilesync_start_writeback(descriptor, -1, 1) == -1)
        #expect(cfilesync_start_writeback(descriptor, 0, -1) == -1)
        #expect(cfilesync_start_writeback(-1, 0, 1) == -1)

        // A pipe has no pages to write back: the hint fails, the writes do not.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let readerDone = DispatchSemaphore(value: 0)
        let readEnd = ends[0]
        Thread {
            var sink = [UInt8](repeating: 0, count: 1 << 16)
            while read(readEnd, &sink, sink.count) > 0 {}
            readerDone.signal()
        }.start()
        defer {
            readerDone.wait()  // the write end is closed by then: the reader has seen the end of the pipe
            close(readEnd)
        }
        do {
            let end = BlockingFile(descriptor: ends[1])
            let writer = WriteBehind(descriptor: end.descriptor, wipes: false, startsWriteback: true)
            var buffer = [UInt8](repeating: 1, count: Int(WriteBehind.writebackStride) + 1)
            try writer.write(&buffer)
            try writer.finish()
            #expect(writer.writebackStarted == WriteBehind.writebackStride + 1)
        }
    }

    @Test(
        "recycled plaintext buffers are wiped whole when writing ends, spare capacity included",
        arguments: [false, true]
    )
    func wipesSpares(wipes: Bool) throws {
        let descriptor = open("/dev/null", O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        let file = BlockingFile(descriptor: descriptor)
        let writer = WriteBehind(descriptor: file.descriptor, wipes: wipes)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        // Each fill shorter than the one before, so a recycled buffer's spare capacity keeps an earlier fill's bytes.
        for (round, size) in [8000, 6000, 4000, 2000, 1000].enumerated() {
            buffer.append(contentsOf: repeatElement(UInt8(round + 1), count: size))
            try writer.write(&buffer)
        }
        try writer.finish()
        var spares = 0
        writer.withSpares { spare in
            spares += 1
            let stored = storedBytes(of: &spare)
            #expect(stored.count >= 8000)
            #expect(stored.allSatisfy { $0 == 0 } == wipes)
        }
        // At least two buffers took turns and the caller holds one; how many more were made depends on timing.
        #expect((1...WriteBehind.depth).contains(spares))
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
