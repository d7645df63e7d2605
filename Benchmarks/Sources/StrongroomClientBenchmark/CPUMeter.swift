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
