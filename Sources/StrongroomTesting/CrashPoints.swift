// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// Seeded crash points: a Strongroom process SIGKILLs itself just before its Nth durable file operation (a write to
/// a regular file, fsync, fdatasync, ftruncate, rename or unlink), through the preloaded shim
/// `Scripts/testing/crashpoint.c`. Counting operations instead of waiting makes each point reproducible from its
/// seed on a busy machine as on a quiet one.
///
/// A workload is first run once to count its operations; then ``points(total:workload:)`` picks where to crash,
/// from ``seed`` (`STRONGROOM_CRASH_SEED`, default 1), ``pointsPerWorkload`` of them (`STRONGROOM_CRASH_POINTS`,
/// default 4; `Scripts/crash-points.sh` runs many more).
public enum CrashPoints {
    /// The seed every workload's points derive from.
    public static var seed: UInt64 {
        ProcessInfo.processInfo.environment["STRONGROOM_CRASH_SEED"].flatMap { UInt64($0) } ?? 1
    }

    /// How many points each workload crashes at.
    public static var pointsPerWorkload: Int {
        let configured = ProcessInfo.processInfo.environment["STRONGROOM_CRASH_POINTS"].flatMap { Int($0) } ?? 4
        return min(max(configured, 1), 10_000)
    }

    /// The shim, compiled with the Swift toolchain's clang into a temporary folder once per test process.
    public static func library() async throws -> URL { try await Compiled.shared.library() }

    /// The environment that preloads the shim: crash before operation `crashAt` (nil: never), and write the number
    /// of operations done to `countFile` at exit. With `sockets`, a write to a socket counts as an operation too (a
    /// process whose durable work is requests to a server, such as a key rotation, is then stopped between two).
    public static func environment(
        library: URL,
        crashAt: Int?,
        countFile: URL? = nil,
        sockets: Bool = false
    ) -> [String: String] {
        var environment = ["LD_PRELOAD": library.path]
        if sockets { environment["STRONGROOM_CRASH_SOCKETS"] = "1" }
        if let crashAt { environment["STRONGROOM_CRASH_AT"] = String(crashAt) }
        if let countFile { environment["STRONGROOM_CRASH_COUNT"] = countFile.path }
        return environment
    }

    /// The operation count a finished run wrote to `countFile`.
    public static func count(in countFile: URL) throws -> Int {
        let text = try String(contentsOf: countFile, encoding: .utf8)
        guard let count = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), count > 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: countFile.path])
        }
        return count
    }

    /// Distinct crash points in `1...total` for `workload`, in increasing order: the same seed and workload give the
    /// same points.
    public static func points(total: Int, workload: String) -> [Int] {
        var generator = SeededGenerator(seed: seed ^ fnv1a(workload))
        var chosen = Set<Int>()
        let wanted = min(pointsPerWorkload, total)
        while chosen.count < wanted { chosen.insert(Int.random(in: 1...total, using: &generator)) }
        return chosen.sorted()
    }

    /// What a reproduction needs, for a failure message.
    public static func describe(workload: String, point: Int, total: Int) -> String {
        "\(workload): crash before operation \(point) of \(total) (STRONGROOM_CRASH_SEED=\(seed))"
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// Compiles the shim once.
    private actor Compiled {
        static let shared = Compiled()
        private var built: URL?

        func library() async throws -> URL {
            if let built { return built }
            let folder = FileManager.default.temporaryDirectory.appending(path: "strongroom-crashpoint-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let output = folder.appending(path: "crashpoint.so")
            let outcome = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments: [
                    "clang", "-shared", "-fPIC", "-O1", "-o", output.path,
                    PythonSDK.path("Scripts/testing/crashpoint.c"), "-ldl",
                ]
            )
            guard outcome.status == 0 else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: outcome.output])
            }
            built = output
            return output
        }
    }
}

/// SplitMix64: a small, fast, seedable generator for choosing test inputs reproducibly (never for secrets).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }
}
