// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Searches a running process's writable memory for a secret: heap, anonymous mappings and stacks, read through
/// `/proc/<pid>/mem` (which needs the right to trace the process: the same user without Yama restrictions, or root).
public enum ProcessMemory {
    /// A region that could not be read, or a process that cannot be inspected.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    /// How many times `secret` occurs in the process's readable, writable mappings.
    ///
    /// - Throws: ``Unreadable`` when the process's map or memory cannot be opened (no such process, no right to
    ///   trace it).
    public static func occurrences(of secret: [UInt8], inProcess pid: Int32) throws -> Int {
        precondition(!secret.isEmpty)
        guard let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8) else {
            throw Unreadable(description: "no memory map for process \(pid)")
        }
        guard let memory = FileHandle(forReadingAtPath: "/proc/\(pid)/mem") else {
            throw Unreadable(description: "cannot open the memory of process \(pid)")
        }
        defer { try? memory.close() }
        var found = 0
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt64(bounds[0], radix: 16), let end = UInt64(bounds[1], radix: 16),
                start < end
            else { continue }
            found += occurrences(of: secret, in: memory, from: start, to: end)
        }
        return found
    }

    /// Occurrences in one region, read a megabyte at a time with an overlap of the secret's length less one, so a
    /// copy across two reads is found once. A region that stops being readable ends its search.
    private static func occurrences(
        of secret: [UInt8],
        in memory: FileHandle,
        from start: UInt64,
        to end: UInt64
    )
        -> Int
    {
        let chunk: UInt64 = 1 << 20
        let overlap = UInt64(secret.count - 1)
        let needle = Data(secret)
        var found = 0
        var offset = start
        while offset < end {
            let length = min(chunk + overlap, end - offset)
            guard (try? memory.seek(toOffset: offset)) != nil,
                let data = try? memory.read(upToCount: Int(length)), !data.isEmpty
            else { return found }
            // Data's search runs in Foundation's optimized code (this test build is not), over tens of megabytes.
            var from = data.startIndex
            while let hit = data.range(of: needle, in: from..<data.endIndex) {
                let index = UInt64(hit.lowerBound - data.startIndex)
                // Counted where it starts, so a copy in the overlap is not counted twice.
                if index < chunk || offset + length == end { found += 1 }
                from = hit.lowerBound + 1
            }
            offset += chunk
        }
        return found
    }
}
