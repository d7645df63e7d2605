// Strongroom — SPDX-License-Identifier: Apache-2.0
// Shield benchmark (not a test), run by Scripts/bench-shield.sh, release build: Integrity.check() latency over every
// check (p50/p99), and the file protector's rate on a large file beside raw libsodium secretstream pushing the same
// bytes in 64 KiB chunks in memory (the protector reads, encrypts and writes a file), with the peak RSS. Two more
// anchors in the same run show where the bound is: the file copied (read, write, fsync: the disk alone) and raw
// secretstream between the same two files (read, push, write, fsync: a one-pass file encryptor without overlap).
// A third, in memory: the same pushes walking through 64 MiB of source and output (past this machine's caches), the
// cipher's own rate on data that is not already cached — which a file's bytes never are.
// The file part runs in the temporary folder (the disk) and on tmpfs (/dev/shm, the disk out of the way), each figure
// ROUNDS times (second argument, default 3), printed as the median with its range.

import CSodium
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

        // The protector on a file of `mebibytes` MiB, beside raw secretstream over the same bytes: once in the
        // temporary folder (on disk) and once on tmpfs (/dev/shm), where the disk is out of the way. Every figure is
        // measured `rounds` times and printed as its median with the range: on this VM one pass over fresh page-cache
        // pages can take twice as long as the next.
        let rounds = CommandLine.arguments.count > 2 ? max(1, Int(CommandLine.arguments[2]) ?? 3) : 3
        let block = [UInt8](repeating: 0x5A, count: 65_536)
        let blocks = mebibytes * 16
        var raw = Rates()
        for _ in 0..<rounds {
            let elapsed = try clock.measure {
                let sealer = try SecretStream.Sealer(key: SecureRandom.bytes(count: 32))
                for index in 0..<blocks {
                    _ = block.withUnsafeBytes { sealer.seal($0, associatedData: [], isFinal: index == blocks - 1) }
                }
            }
            raw.add(bytes: mebibytes << 20, in: elapsed)
        }
        let rawRate = raw.median
        // The same pushes walking through 64 MiB of source and of output (larger than this machine's caches), as a
        // file's bytes arrive: what the cipher alone does when its data is not already in the cache.
        var walked = Rates()
        for _ in 0..<rounds { walked.add(bytes: mebibytes << 20, in: rawWalk(mebibytes: mebibytes)) }
        resetPeakRSS()  // the walk's 128 MiB of buffers are freed: the peak printed below is the protector's
        print(
            "File protector, \(mebibytes) MiB file, \(rounds) rounds (MB/s median [min–max]; anchors in the same run)"
        )
        print("raw secretstream in memory          \(raw)")
        print(
            "raw secretstream, 64 MiB buffers    \(walked)   \(f(walked.median / rawRate))x in memory (data past the caches)"
        )
        var summaries: [String] = []
        var places = [("disk", URL(fileURLWithPath: NSTemporaryDirectory()))]
        if FileManager.default.fileExists(atPath: "/dev/shm") {
            places.append(("tmpfs", URL(fileURLWithPath: "/dev/shm")))
        }
        for (name, folder) in places {
            let rates = try await measureProtector(in: folder, mebibytes: mebibytes, rounds: rounds)
            print("[\(name)] file copy + fsync           \(rates.copy)   \(f(rates.copy.median / rawRate))x in memory")
            print("[\(name)] raw secretstream file to file \(rates.rawFile)")
            print(
                "[\(name)] protect                     \(rates.protect)   \(f(rates.protect.median / rawRate))x in memory, \(f(rates.protect.median / rates.rawFile.median))x file to file"
            )
            print(
                "[\(name)] unprotect                   \(rates.unprotect)   \(f(rates.unprotect.median / rawRate))x in memory, \(f(rates.unprotect.median / rates.rawFile.median))x file to file"
            )
            print(
                "[\(name)]   beside the 64 MiB walk: protect \(f(rates.protect.median / walked.median))x, unprotect \(f(rates.unprotect.median / walked.median))x"
            )
            summaries.append(
                "\(name): protect \(f(rates.protect.median / rawRate))x, unprotect \(f(rates.unprotect.median / rawRate))x (copy alone \(f(rates.copy.median / rawRate))x)"
            )
        }
        let peak = peakRSS()
        print("peak RSS                            \(peak / 1024) MiB")
        print(
            "summary: check p99 \(f(p99)) ms; medians vs raw secretstream in memory (target >= 0.8x): \(summaries.joined(separator: "; ")); peak RSS \(peak / 1024) MiB on \(mebibytes) MiB (target <= 64 MiB)"
        )
    }

    /// Rates of repeated measurements of one figure, in MB/s.
    struct Rates: CustomStringConvertible {
        private(set) var samples: [Double] = []

        mutating func add(bytes: Int, in elapsed: Duration) {
            samples.append(Double(bytes) / elapsed.seconds / 1e6)
        }

        var median: Double {
            let sorted = samples.sorted()
            return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        }

        var description: String {
            "\(f(median)) [\(f(samples.min() ?? 0))–\(f(samples.max() ?? 0))]"
        }
    }

    /// The protector's and the I/O anchors' rates on a file of `mebibytes` MiB in `folder`, `rounds` times each.
    static func measureProtector(
        in folder: URL,
        mebibytes: Int,
        rounds: Int
    ) async throws -> (protect: Rates, unprotect: Rates, copy: Rates, rawFile: Rates) {
        let clock = ContinuousClock()
        let work = folder.appending(path: "shield-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appending(path: "plain.bin")
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
        _ = FileManager.default.createFile(atPath: source.path, contents: nil)
        let handle = try FileHandle(forWritingTo: source)
        for _ in 0..<mebibytes { try handle.write(contentsOf: chunk) }
        try handle.close()
        let bytes = mebibytes << 20

        let keychain = Keychain.inMemory()
        let protector = try FileProtector(keychain: keychain, key: "bench")
        var rates = (protect: Rates(), unprotect: Rates(), copy: Rates(), rawFile: Rates())
        for _ in 0..<rounds {
            // Every measurement starts with nothing dirty waiting for the disk; each round's outputs are removed.
            let protected = work.appending(path: "plain.protected")
            let restored = work.appending(path: "restored.bin")
            let copy = work.appending(path: "copy.bin")
            let sealed = work.appending(path: "raw.sealed")
            sync()
            rates.protect.add(
                bytes: bytes,
                in: try await clock.measure { try await protector.protect(contentsOf: source, to: protected) }
            )
            sync()
            rates.unprotect.add(
                bytes: bytes,
                in: try await clock.measure { try await protector.unprotect(contentsOf: protected, to: restored) }
            )
            sync()
            rates.copy.add(
                bytes: bytes,
                in: try clock.measure { try fileLoop(from: source.path, to: copy.path, sealing: false) }
            )
            sync()
            rates.rawFile.add(
                bytes: bytes,
                in: try clock.measure { try fileLoop(from: source.path, to: sealed.path, sealing: true) }
            )
            for output in [protected, restored, copy, sealed] { try FileManager.default.removeItem(at: output) }
        }
        return rates
    }

    /// Pushes `mebibytes` MiB through raw libsodium secretstream in 64 KiB chunks, reading from a 64 MiB source and
    /// sealing into a 64 MiB output, both walked end to end and reused: the in-memory anchor without the cache's help.
    /// Returns the time of the pushes alone (the buffers are allocated and filled before the clock starts).
    static func rawWalk(mebibytes: Int) -> Duration {
        let span = 64 << 20
        let chunk = 65_536
        let source = [UInt8](repeating: 0x5A, count: span)
        var sealed = [UInt8](repeating: 0, count: span / chunk * (chunk + 17))
        var state = crypto_secretstream_xchacha20poly1305_state()
        var key = [UInt8](repeating: 7, count: 32)
        var header = [UInt8](repeating: 0, count: 24)
        crypto_secretstream_xchacha20poly1305_init_push(&state, &header, &key)
        let clock = ContinuousClock()
        let started = clock.now
        source.withUnsafeBufferPointer { input in
            sealed.withUnsafeMutableBufferPointer { output in
                for index in 0..<(mebibytes << 20) / chunk {
                    let slot = index % (span / chunk)
                    _ = push(
                        &state,
                        input.baseAddress?.advanced(by: slot * chunk),
                        count: chunk,
                        into: output.baseAddress?.advanced(by: slot * (chunk + 17))
                    )
                }
            }
        }
        return clock.now - started
    }

    /// Reads `source` in 1 MiB pieces and writes it (pushed through raw secretstream in 64 KiB chunks when
    /// `sealing`) to a new file at `destination`, then fsyncs it: the I/O anchors.
    static func fileLoop(from source: String, to destination: String, sealing: Bool) throws {
        let input = open(source, O_RDONLY)
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard input >= 0, output >= 0 else { throw CocoaError(.fileNoSuchFile) }
        defer {
            close(input)
            close(output)
        }
        var state = crypto_secretstream_xchacha20poly1305_state()
        var key = [UInt8](repeating: 7, count: 32)
        var header = [UInt8](repeating: 0, count: 24)
        crypto_secretstream_xchacha20poly1305_init_push(&state, &header, &key)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var sealed = [UInt8](repeating: 0, count: 16 * (65_536 + 17))
        while true {
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            if sealing {
                var produced = 0
                var offset = 0
                // Whole-array pointers: a slice's mutable buffer would copy the array on every chunk.
                buffer.withUnsafeBufferPointer { plain in
                    sealed.withUnsafeMutableBufferPointer { out in
                        while offset < count {
                            let piece = min(65_536, count - offset)
                            produced += push(
                                &state,
                                plain.baseAddress?.advanced(by: offset),
                                count: piece,
                                into: out.baseAddress?.advanced(by: produced)
                            )
                            offset += piece
                        }
                    }
                }
                guard write(output, sealed, produced) == produced else { throw CocoaError(.fileWriteUnknown) }
            } else {
                guard write(output, buffer, count) == count else { throw CocoaError(.fileWriteUnknown) }
            }
        }
        fsync(output)
    }

    /// One raw libsodium secretstream push of `count` bytes from `input` into `output`; the sealed length.
    static func push(
        _ state: inout crypto_secretstream_xchacha20poly1305_state,
        _ input: UnsafePointer<UInt8>?,
        count: Int,
        into output: UnsafeMutablePointer<UInt8>?
    ) -> Int {
        var length: UInt64 = 0
        _ = crypto_secretstream_xchacha20poly1305_push(&state, output, &length, input, UInt64(count), nil, 0, 0)
        return Int(length)
    }

    static func f(_ value: Double) -> String { String(format: "%.2f", value) }

    /// Resets VmHWM to the current resident size (Linux: "5" written to /proc/self/clear_refs).
    static func resetPeakRSS() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

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
