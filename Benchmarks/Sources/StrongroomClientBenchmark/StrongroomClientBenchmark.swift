// Strongroom — SPDX-License-Identifier: Apache-2.0
// The Swift SDK's half of Scripts/bench-client.sh (not a test). Against a running server it writes then reads N
// records of five 1 KiB fields one at a time (as the Python SDK does), then 8 at a time, then a file of M MiB; it
// prints each figure beside its anchor: the official Python SDK's rate from the same run (JSON in argument 4), and
// for files the raw local file-encryption rate (FileCipher disk to disk, no network).
import Crypto
import Foundation
import StrongroomClient
import StrongroomCrypto

@main
enum StrongroomClientBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 6, let url = URL(string: arguments[1]), let records = Int(arguments[3]),
            let mib = Int(arguments[5])
        else {
            print("usage: StrongroomClientBenchmark URL TOKEN RECORDS PYTHON_JSON FILE_MIB [WORK_DIR]")
            return
        }
        let python =
            (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: arguments[4]))))
            as? [String: Double] ?? [:]
        let work = URL(fileURLWithPath: arguments.count > 6 ? arguments[6] : NSTemporaryDirectory())
        let configuration = try await Client.register(token: arguments[2], clientName: "bench-swift", apiURL: url)
        let client = Client(configuration: configuration)
        let data = Dictionary(
            uniqueKeysWithValues: (0..<5).map { i in
                ("field\(i)", String(repeating: Character(UnicodeScalar(UInt8(97 + i))), count: 1024))
            }
        )
        _ = try await client.write(type: "bench-warmup", data: data)

        let clock = ContinuousClock()
        let meter = CPUMeter()
        var cpu: [CPUPerRecord] = []
        var summary: [(figure: String, swift: Double, python: Double?, target: Double?)] = []
        // Each phase runs in a nonisolated function, off the main actor `main` is isolated to: a loop on the main
        // actor would hop to it and back around every call (two thread wake-ups per record that are the caller's
        // choice, not the SDK's; Python's loop has none). The concurrent phases' child tasks are nonisolated anyway.
        var before = meter.read()
        let (writing, ids) = try await writeOneAtATime(client, data: data, count: records)
        cpu.append(CPUPerRecord(from: before, to: meter.read(), records: records))
        before = meter.read()
        let reading = try await readOneAtATime(client, ids: ids, expecting: data)
        cpu.append(CPUPerRecord(from: before, to: meter.read(), records: records))
        before = meter.read()
        let concurrentWriting = try await inEightLanes(count: records) { _ in
            _ = try await client.write(type: "bench", data: data)
        }
        cpu.append(CPUPerRecord(from: before, to: meter.read(), records: records))
        let written = ids
        before = meter.read()
        let concurrentReading = try await inEightLanes(count: written.count) { index in
            _ = try await client.read(recordID: written[index])
        }
        cpu.append(CPUPerRecord(from: before, to: meter.read(), records: records))

        print("Records: \(records) of five 1 KiB fields, loopback, SQLite server (release), same run")
        print("figure                              Swift SDK        Python SDK (official)   Swift / Python")
        let phases = [
            ("write, one at a time (records/s)", writing, "write_rps", 5.0, false),
            ("read, one at a time (records/s)", reading, "read_rps", 5.0, false),
            ("write, 8 concurrent (records/s)", concurrentWriting, "write_rps", 10.0, true),
            ("read, 8 concurrent (records/s)", concurrentReading, "read_rps", 10.0, true),
        ]
        for (index, (label, elapsed, key, target, concurrent)) in phases.enumerated() {
            line(label, Double(records) / elapsed.seconds, python[key])
            print(
                "  CPU per record: " + cpu[index].describe(target: target, python: python[key], concurrent: concurrent)
            )
        }

        // The floor under a read one at a time: the same GET with bare HTTP, no crypto (and Python's, from requests).
        let token = try await RawRequests.token(for: configuration)
        let base = url.absoluteString
        let rawRecord = try await RawRequests.getRate(
            base + "/v1/storage/records/\(written[0].uuidString.lowercased())",
            authorization: "Bearer \(token)",
            count: records
        )
        let rawHealth = try await RawRequests.getRate(base + "/health", authorization: nil, count: records)
        line("bare GET record, AsyncHTTPClient", rawRecord, python["raw_read_rps"])
        line("bare GET /health, one at a time", rawHealth, nil)
        let nioRecord = try await RawNIOGet.rate(
            host: url.host ?? "127.0.0.1",
            port: url.port ?? 80,
            path: "/v1/storage/records/\(written[0].uuidString.lowercased())",
            authorization: "Bearer \(token)",
            count: records
        )
        line("bare GET record, one NIO channel", nioRecord, python["raw_read_rps"])
        let recordURL = base + "/v1/storage/records/\(written[0].uuidString.lowercased())"
        let getFloor = OneConnectionFloor.rate(recordURL, authorization: "Bearer \(token)")
        if let getFloor { line("floor: wrk GET record, one conn", getFloor, python["read_rps"]) }
        let postFloor = try OneConnectionFloor.rate(
            base + "/v1/storage/records",
            posting: OneConnectionFloor.recordBody(writer: configuration.clientID),
            authorization: "Bearer \(token)",
            in: work
        )
        if let postFloor { line("floor: wrk POST record, one conn", postFloor, python["write_rps"]) }
        let healthFloor = OneConnectionFloor.rate(base + "/health", authorization: nil)
        if let healthFloor { line("floor: wrk GET /health, one conn", healthFloor, nil) }
        print("  (the floors: one request at a time from wrk, no cryptography, beside the Python SDK's rate)")
        let sdkRead = Double(records) / reading.seconds
        let bound = try OneAtATimeBound.measure(data: data)
        let micro = { (rate: Double?) in rate.map { 1e6 / $0 } }
        let channelGap = micro(getFloor).map { 1e6 / nioRecord - $0 }
        print("one at a time, µs per record (this run; crypto with warm caches, as on one thread in a loop):")
        print(
            OneAtATimeBound.describe(
                "read",
                budget: micro(python["read_rps"].map { $0 * 5 }),
                floor: micro(getFloor),
                crypto: bound.readCrypto,
                channelGap: channelGap,
                sdk: reading.seconds * 1e6 / Double(records)
            )
        )
        print(
            OneAtATimeBound.describe(
                "write",
                budget: micro(python["write_rps"].map { $0 * 5 }),
                floor: micro(postFloor),
                crypto: bound.writeCrypto,
                channelGap: channelGap,
                sdk: writing.seconds * 1e6 / Double(records)
            )
        )
        for (label, python, floor, crypto) in [
            ("read", python["read_rps"], getFloor, bound.readCrypto),
            ("write", python["write_rps"], postFloor, bound.writeCrypto),
        ] {
            print(
                OneAtATimeBound.ceiling(
                    label,
                    python: micro(python),
                    floor: micro(floor),
                    health: micro(healthFloor),
                    crypto: crypto
                )
            )
        }
        print(
            String(
                format: "  a round trip between two threads waking each other: %.1f µs (each hand-off in a request"
                    + " pays one wake-up)",
                bound.wakeRoundTrip
            )
        )
        print(
            String(
                format:
                    "  SDK read one at a time = %.0f%% of a bare GET on one NIO channel (%.0f%% of AsyncHTTPClient's);"
                    + " the Python SDK's = %@ of requests'",
                sdkRead / nioRecord * 100,
                sdkRead / rawRecord * 100,
                python["read_rps"].flatMap { read in
                    python["raw_read_rps"].map { String(format: "%.0f%%", read / $0 * 100) }
                }
                    ?? "n/a"
            )
        )
        summary.append(("read", sdkRead, python["read_rps"], 5))
        summary.append(("write", Double(records) / writing.seconds, python["write_rps"], 5))
        summary.append(("read x8", Double(records) / concurrentReading.seconds, python["read_rps"], 10))
        summary.append(("write x8", Double(records) / concurrentWriting.seconds, python["write_rps"], 10))
        defer { printSummary(summary) }

        guard mib > 0 else { return }
        let size = Int64(mib) << 20
        let plain = work.appending(path: "swift-plain.bin")
        try writeRandomFile(plain, mebibytes: mib)
        defer { try? FileManager.default.removeItem(at: plain) }

        // Anchor: the same format "3" encryption and decryption, disk to disk, with no network.
        let key = AccessKey()
        let local = work.appending(path: "swift-local.e3db")
        let localCopy = work.appending(path: "swift-local-copy.bin")
        defer {
            try? FileManager.default.removeItem(at: local)
            try? FileManager.default.removeItem(at: localCopy)
        }
        let encrypting = try await clock.measure {
            _ = try await FileCipher.encrypt(contentsOf: plain, to: local, with: key)
        }
        let decrypting = try await clock.measure {
            _ = try await FileCipher.decrypt(contentsOf: local, to: localCopy, with: key)
        }

        let copy = work.appending(path: "swift-copy.bin")
        defer { try? FileManager.default.removeItem(at: copy) }
        var info: FileInfo?
        let stages = StageClock()
        let beforeUpload = ContinuousClock.now
        let uploading = try await clock.measure {
            info = try await client.writeFile(type: "bench-file", fileURL: plain) { stages.saw($0) }
        }
        let afterUpload = ContinuousClock.now
        let downloading = try await clock.measure {
            guard let info else { return }
            try await client.readFile(recordID: info.meta.recordID, destination: copy)
        }
        print("")
        print("File: \(mib) MiB (MB/s = 10^6 bytes per second)")
        print("figure                              Swift SDK        local FileCipher only    SDK / local   Python SDK")
        fileLine(
            "writeFile: encrypt + upload",
            mbps(size, uploading),
            mbps(size, encrypting),
            python["file_write_mbps"]
        )
        fileLine(
            "readFile: download + decrypt",
            mbps(size, downloading),
            mbps(size, decrypting),
            python["file_read_mbps"]
        )
        // The CPU a readFile must spend besides decrypting: the MD5 of the ciphertext (E3DB's file checksum).
        let md5Rate = try md5Rate(of: local, size: size)
        print(
            String(
                format: "  readFile's checksum alone (MD5 of the ciphertext, from the page cache): %.1f MB/s",
                md5Rate
            )
        )
        summary.append(("readFile", mbps(size, downloading), python["file_read_mbps"], 1.5))
        summary.append(("writeFile", mbps(size, uploading), python["file_write_mbps"], nil))
        if let started = stages.firstUpload {
            print(
                String(
                    format: "  of writeFile, key + encryption to a temporary file: %.1f MB/s",
                    mbps(size, started - beforeUpload)
                )
            )
            print(String(format: "  of writeFile, the upload alone: %.1f MB/s", mbps(size, afterUpload - started)))
        }
    }

    /// Writes `count` records one after another; the elapsed time and their IDs.
    nonisolated static func writeOneAtATime(
        _ client: Client,
        data: [String: String],
        count: Int
    ) async throws -> (Duration, [UUID]) {
        var ids: [UUID] = []
        let elapsed = try await ContinuousClock().measure {
            for _ in 0..<count { ids.append(try await client.write(type: "bench", data: data).meta.recordID) }
        }
        return (elapsed, ids)
    }

    /// Reads the records `ids` one after another, checking each one's fields.
    nonisolated static func readOneAtATime(
        _ client: Client,
        ids: [UUID],
        expecting data: [String: String]
    ) async throws -> Duration {
        try await ContinuousClock().measure {
            for id in ids {
                let record = try await client.read(recordID: id)
                precondition(record.data == data)
            }
        }
    }

    /// Runs `body` for every index below `count`, from 8 tasks at once (task `lane` takes `lane`, `lane + 8`, …).
    nonisolated static func inEightLanes(
        count: Int,
        _ body: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> Duration {
        try await ContinuousClock().measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<8 {
                    group.addTask {
                        for index in stride(from: lane, to: count, by: 8) { try await body(index) }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// MB/s of an MD5 over `file`, read in 1 MiB pieces (swift-crypto, as the SDK's download check).
    static func md5Rate(of file: URL, size: Int64) throws -> Double {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var digest = Insecure.MD5()
        let start = ContinuousClock.now
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty { digest.update(data: piece) }
        _ = digest.finalize()
        return mbps(size, .now - start)
    }

    /// One line of every ratio to the Python SDK beside the target, for a reader in a hurry.
    static func printSummary(_ figures: [(figure: String, swift: Double, python: Double?, target: Double?)]) {
        let parts = figures.map { figure -> String in
            let ratio = figure.python.map { String(format: "%.2fx", figure.swift / $0) } ?? "n/a"
            return figure.figure + " " + ratio + (figure.target.map { String(format: " (target %.1fx)", $0) } ?? "")
        }
        print("")
        print("summary, Swift / Python: " + parts.joined(separator: ", "))
    }

    static func mbps(_ bytes: Int64, _ duration: Duration) -> Double { Double(bytes) / 1e6 / duration.seconds }

    static func line(_ label: String, _ swift: Double, _ python: Double?) {
        let anchor = python.map { String(format: "%10.1f", $0) } ?? "       n/a"
        let ratio = python.map { String(format: "%6.2fx", swift / $0) } ?? "    n/a"
        print(
            label.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: "%10.1f", swift) + "        "
                + anchor + "              " + ratio
        )
    }

    static func fileLine(_ label: String, _ swift: Double, _ local: Double, _ python: Double?) {
        let py = python.map { String(format: "%8.1f", $0) } ?? "     n/a"
        print(
            label.padding(toLength: 34, withPad: " ", startingAt: 0)
                + String(format: "%10.1f        %10.1f            %6.1f%%", swift, local, swift / local * 100)
                + "   " + py
        )
    }

    static func writeRandomFile(_ url: URL, mebibytes: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<mebibytes {
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            for index in stride(from: 0, to: chunk.count, by: 8) {
                withUnsafeBytes(of: generator.next() as UInt64) { chunk.replaceSubrange(index..<index + 8, with: $0) }
            }
            try handle.write(contentsOf: chunk)
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// When the first upload progress arrived (the encryption stage is over then).
final class StageClock: @unchecked Sendable {
    // @unchecked: written once from the progress callback before it is read after writeFile returns.
    private let lock = NSLock()
    private var first: ContinuousClock.Instant?

    var firstUpload: ContinuousClock.Instant? { lock.withLock { first } }

    func saw(_ progress: FileTransferProgress) {
        guard case .uploading = progress else { return }
        lock.withLock { if first == nil { first = .now } }
    }
}
