// Strongroom — SPDX-License-Identifier: Apache-2.0
// Shield benchmark (not a test), run by Scripts/bench-shield.sh, release build: Integrity.check() latency over every
// check (p50/p99), and the file protector's rate on a large file beside raw libsodium secretstream pushing the same
// bytes in 64 KiB chunks in memory (the protector reads, encrypts and writes a file), with the peak RSS.
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomShield

@main
enum StrongroomShieldBenchmark {
    static func main() async throws {
        let mebibytes = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1024 : 1024
        let clock = ContinuousClock()

        // Integrity.check(): every default check, 300 runs after 20 warm-up runs.
        for _ in 0..<20 { _ = Integrity.check() }
        var samples: [Double] = []
        for _ in 0..<300 {
            let elapsed = clock.measure { _ = Integrity.check() }
            samples.append(elapsed.seconds * 1000)
        }
        samples.sort()
        let p50 = samples[samples.count / 2]
        let p99 = samples[samples.count * 99 / 100]
        print(
            "Integrity.check(), \(Integrity.defaultChecks.count) checks, 300 runs: p50 \(f(p50)) ms, p99 \(f(p99)) ms"
        )

        // The protector on a file of `mebibytes` MiB, beside raw secretstream over the same bytes.
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appending(path: "shield-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appending(path: "plain.bin")
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
        FileManager.default.createFile(atPath: source.path, contents: nil)
        let handle = try FileHandle(forWritingTo: source)
        for _ in 0..<mebibytes { try handle.write(contentsOf: chunk) }
        try handle.close()
        let bytes = Double(mebibytes) * 1_048_576

        let keychain = Keychain.inMemory()
        let protector = try FileProtector(keychain: keychain, key: "bench")
        let protected = work.appending(path: "plain.protected")
        let protect = try await clock.measure {
            try await protector.protect(contentsOf: source, to: protected)
        }
        let restored = work.appending(path: "restored.bin")
        let unprotect = try await clock.measure {
            try await protector.unprotect(contentsOf: protected, to: restored)
        }
        let block = [UInt8](repeating: 0x5A, count: 65_536)
        let blocks = mebibytes * 16
        let raw = try clock.measure {
            let sealer = try SecretStream.Sealer(key: SecureRandom.bytes(count: 32))
            for index in 0..<blocks {
                _ = block.withUnsafeBytes { sealer.seal($0, associatedData: [], isFinal: index == blocks - 1) }
            }
        }
        let rawRate = bytes / raw.seconds / 1e6
        let protectRate = bytes / protect.seconds / 1e6
        let unprotectRate = bytes / unprotect.seconds / 1e6
        print("File protector, \(mebibytes) MiB file (MB/s; anchor: raw secretstream push in memory, same run)")
        print("raw secretstream   \(f(rawRate))")
        print("protect            \(f(protectRate))   \(f(protectRate / rawRate))x raw")
        print("unprotect          \(f(unprotectRate))   \(f(unprotectRate / rawRate))x raw")
        let peak = peakRSS()
        print("peak RSS           \(peak / 1024) MiB")
        print(
            "summary: check p99 \(f(p99)) ms; protect \(f(protectRate / rawRate))x, unprotect \(f(unprotectRate / rawRate))x raw secretstream (target >= 0.8x); peak RSS \(peak / 1024) MiB on \(mebibytes) MiB (target <= 64 MiB)"
        )
    }

    static func f(_ value: Double) -> String { String(format: "%.2f", value) }

    /// VmHWM from /proc/self/status, in KiB.
    static func peakRSS() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
        }
        return 0
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
