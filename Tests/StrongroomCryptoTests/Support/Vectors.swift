// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import Testing

/// Loads a vector file from `Tests/StrongroomCryptoTests/Vectors` (see its README for the generators).
enum Vectors {
    static var directory: URL {
        get throws {
            try #require(Bundle.module.url(forResource: "Vectors", withExtension: nil), "vector folder missing")
        }
    }

    static func load<T: Decodable>(_ type: T.Type, _ relativePath: String) throws -> T {
        let data = try Data(contentsOf: directory.appending(path: relativePath))
        return try JSONDecoder().decode(T.self, from: data)
    }

    static func bytes(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory.appending(path: relativePath))
    }
}

/// Decodes unpadded base64url in tests.
func b64(_ text: String) throws -> Data { try Base64URL.decode(text) }

/// Replays recorded random bytes in order, so Swift can re-create the exact output of a Python vector. The values
/// form one stream: each `fill` takes the next bytes, however the code under test groups its draws.
final class ReplayRandomSource: RandomSource, @unchecked Sendable {
    // Used from one test at a time; the lock keeps it honest anyway.
    private let lock = NSLock()
    private var stream: [UInt8]

    init(_ values: [Data]) { self.stream = values.flatMap { Array($0) } }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        precondition(stream.count >= buffer.count, "ReplayRandomSource ran out of recorded bytes")
        buffer.copyBytes(from: stream.prefix(buffer.count))
        stream.removeFirst(buffer.count)
    }

    var isExhausted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stream.isEmpty
    }
}

/// The plaintext of the file vectors: byte i is (i * 31 + 7) mod 251.
func filePattern(_ size: Int) -> [UInt8] {
    (0..<size).map { UInt8(($0 * 31 + 7) % 251) }
}
