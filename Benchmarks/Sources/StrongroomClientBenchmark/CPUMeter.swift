// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU seconds spent so far by this process and, where its pid is known, by the server it talks to: read before and
/// after a phase, the difference per record says where a record's time goes.
struct CPUMeter {
    /// The server's pid (`STRONGROOM_BENCH_SERVER_PID`, set by `Scripts/bench-client.sh`); nil when run by hand.
    let serverPID: Int32? = ProcessInfo.processInfo.environment["STRONGROOM_BENCH_SERVER_PID"].flatMap { Int32($0) }

    struct Reading {
        let sdk: Double
        let server: Double?
    }

    func read() -> Reading {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Reading(sdk: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, server: serverPID.flatMap(Self.cpuSeconds))
    }

    /// User plus system time of `pid` from `/proc/<pid>/stat` (fields 14 and 15, counted after the command name,
    /// which may contain spaces and parentheses); nil where there is no such file.
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// The CPU µs the SDK and the server spent per record over one phase.
struct CPUPerRecord {
    let sdk: Double
    let server: Double?

    init(from start: CPUMeter.Reading, to end: CPUMeter.Reading, records: Int) {
        sdk = (end.sdk - start.sdk) * 1e6 / Double(records)
        server = start.server.flatMap { before in end.server.map { ($0 - before) * 1e6 / Double(records) } }
    }

    /// "SDK a + server b µs", and the most a record may cost at `target` times `python`'s rate: one at a time the
    /// client's and the server's work follow each other, so together they must fit in one record's wall time; with
    /// several tasks they share the cores.
    func describe(target: Double, python: Double?, concurrent: Bool) -> String {
        var text = String(format: "SDK %.0f", sdk) + (server.map { String(format: " + server %.0f", $0) } ?? "") + " µs"
        if let python {
            let cores = concurrent ? Double(ProcessInfo.processInfo.activeProcessorCount) : 1
            text += String(format: "; at %.0fx ≤ %.0f µs", target, cores * 1e6 / (target * python))
            if !concurrent { text += " of wall time" }
        }
        return text
    }
}

/// What the server answers one connection with the lightest client there is: wrk (C, no TLS, no cryptography), one
/// request at a time for three seconds. No client, however fast, writes or reads one record at a time faster.
enum OneConnectionFloor {
    /// GETs of `url` per second; nil when wrk is missing or failed.
    static func rate(_ url: String, authorization: String) -> Double? {
        run(["-H", "Authorization: \(authorization)", url])
    }

    /// POSTs of `body` (JSON) to `url` per second, through a wrk script written in `work`.
    static func rate(_ url: String, posting body: String, authorization: String, in work: URL) throws -> Double? {
        let script = work.appending(path: "post-floor.lua")
        defer { try? FileManager.default.removeItem(at: script) }
        let quoted = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
        try """
        wrk.method = "POST"
        wrk.body = \(quoted)
        wrk.headers["Authorization"] = "\(authorization)"
        wrk.headers["Content-Type"] = "application/json"
        """.write(to: script, atomically: true, encoding: .utf8)
        return run(["-s", script.path, url])
    }

    /// A record write of five 1 KiB fields shaped like EDK.EDKN.EF.EFN ciphertext (the server never looks inside).
    static func recordBody(writer: UUID) -> String {
        let part = { (count: Int) in
            Data((0..<count).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let fields = (0..<5).map { "\"f\($0)\":\"\(part(48)).\(part(24)).\(part(1040)).\(part(24))\"" }
        let id = writer.uuidString.lowercased()
        return #"{"meta":{"writer_id":"\#(id)","user_id":"\#(id)","type":"bench-floor","plain":{}},"data":{"#
            + fields.joined(separator: ",") + "}}"
    }

    private static func run(_ arguments: [String]) -> Double? {
        let wrk = Process()
        wrk.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        wrk.arguments = ["wrk", "-t1", "-c1", "-d3s"] + arguments
        let output = Pipe()
        wrk.standardOutput = output
        wrk.standardError = FileHandle.nullDevice
        guard (try? wrk.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        wrk.waitUntilExit()
        guard wrk.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") })
        else { return nil }
        return Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
    }
}
