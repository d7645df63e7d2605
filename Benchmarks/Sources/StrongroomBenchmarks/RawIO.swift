// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// The I/O anchor: copy a file 1 MiB at a time and fsync it, with no crypto.
enum RawIO {
    static func copy(from source: String, to destination: String) throws {
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
        FileManager.default.createFile(atPath: destination, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: destination))
        while let data = try input.read(upToCount: 1 << 20), !data.isEmpty { try output.write(contentsOf: data) }
        try output.synchronize()
        try output.close()
        try input.close()
    }
}
