// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient

/// What a revoke that rotates costs (docs/design/Revocation.md), release build, beside the same run's plain revoke
/// (`rotate: false`, the anchor): a rotation of a type shared with `readers` readers (one EAK each, one commit), and
/// the re-wrap of a type holding `records` records, each as wall time and as this process's CPU time.
/// Usage: StrongroomRotationBenchmark URL TOKEN [readers, default 1000] [records, default 10000]
@main
struct StrongroomRotationBenchmark {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2, let url = URL(string: arguments[0]) else {
            print("usage: StrongroomRotationBenchmark URL TOKEN [readers] [records]")
            exit(64)
        }
        let token = arguments[1]
        let readers = arguments.count > 2 ? Int(arguments[2]) ?? 1_000 : 1_000
        let records = arguments.count > 3 ? Int(arguments[3]) ?? 10_000 : 10_000
        #if DEBUG
        print("warning: debug build; run Scripts/bench-rotation.sh for release figures")
        #endif
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("Strongroom rotation benchmark — \(cores) cores, server on this machine")
        let writer = Client(configuration: try await Client.register(token: token, clientName: "writer", apiURL: url))
        var registered: [UUID] = []
        for index in 0..<(readers + 1) {
            let reader = try await Client.register(token: token, clientName: "reader-\(index)", apiURL: url)
            registered.append(reader.clientID)
        }
        let readerIDs = registered
        // A type shared with every reader (plus one the plain revoke removes), one record.
        _ = try await writer.write(type: "shared", data: ["n": "0"])
        for reader in readerIDs { try await writer.share(type: "shared", readerID: reader) }
        let (plain, _) = try await measuring {
            try await writer.revoke(type: "shared", readerID: readerIDs[0], rotate: false)
        }
        let (rotation, _) = try await measuring {
            try await writer.revoke(type: "shared", readerID: readerIDs[1])
        }
        print(
            String(
                format:
                    "revoke, %d readers kept: plain (anchor) %.3f s wall, %.3f s CPU; "
                    + "rotating %.3f s wall, %.3f s CPU (target ≤ 1 s CPU)",
                readers - 1,
                plain.wall,
                plain.cpu,
                rotation.wall,
                rotation.cpu
            )
        )
        // A type of `records` records and one reader: the re-wrap.
        for index in 0..<records { _ = try await writer.write(type: "many", data: ["n": "\(index)", "m": "x"]) }
        try await writer.share(type: "many", readerID: readerIDs[2])
        try await writer.share(type: "many", readerID: readerIDs[3])
        let (rewrap, report) = try await measuring {
            try await writer.revoke(type: "many", readerID: readerIDs[2])
        }
        print(
            String(
                format: "re-wrap of %d records: %.2f s wall (%.0f records/s), %.2f s CPU; re-wrapped %d, left %d",
                records,
                rewrap.wall,
                Double(records) / rewrap.wall,
                rewrap.cpu,
                report?.recordsRewrapped ?? -1,
                report?.recordsLeft ?? -1
            )
        )
        print(
            String(
                format: "at this rate 1,000,000 records take %.0f s (target ≤ 60 s; bulk re-wrap, 1,000 per request)",
                1_000_000 / (Double(records) / rewrap.wall)
            )
        )
    }

    /// Wall time and this process's CPU time (user + system) of `body`, and what it returned.
    static func measuring<T: Sendable>(
        _ body: @Sendable () async throws -> T
    ) async throws -> (time: (wall: Double, cpu: Double), value: T) {
        let start = (ContinuousClock.now, cpuSeconds())
        let value = try await body()
        let wall = ContinuousClock.now - start.0
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        return ((seconds, cpuSeconds() - start.1), value)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }
}
