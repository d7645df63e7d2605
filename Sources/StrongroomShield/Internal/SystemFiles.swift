// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Bounded reads of `/proc` and `/etc` files (their reported size is 0, so they are read to the end, never past
/// `limit`).
enum SystemFiles {
    /// The file's bytes, at most `limit`; nil when it cannot be read.
    static func bytes(_ path: String, limit: Int = 1 << 20) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }  // read-only: closing cannot lose anything
        var data = Data()
        while data.count < limit {
            let chunk: Data?
            // A read that fails part-way is "cannot be read", never the part read so far taken for the whole file.
            do { chunk = try handle.read(upToCount: min(64 << 10, limit - data.count)) } catch { return nil }
            guard let chunk, !chunk.isEmpty else { break }
            data.append(chunk)
        }
        return data
    }

    /// The file as text (invalid UTF-8 repaired), at most `limit` bytes.
    static func text(_ path: String, limit: Int = 1 << 20) -> String? {
        bytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value of `key:` in a `/proc/<pid>/status`-style file.
    static func statusField(_ key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// A process's command name (`/proc/<pid>/comm`), or nil.
    static func commandName(of pid: Int) -> String? {
        guard pid > 0 else { return nil }
        return text("/proc/\(pid)/comm", limit: 256)?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
