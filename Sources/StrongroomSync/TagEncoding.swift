// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The fixed binary layout of what replication hashes: each variable-length part is preceded by its length as four
/// big-endian bytes, so no two different inputs share an encoding (document IDs may hold any character).
enum TagEncoding {
    static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        let count = UInt32(truncatingIfNeeded: bytes.count)
        return [
            UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
            UInt8(truncatingIfNeeded: count),
        ] + bytes
    }

    /// A one-byte domain (`d` for documents, `r` for revisions) and then each part length-prefixed.
    static func message(domain: Character, _ parts: [String]) -> [UInt8] {
        [UInt8(ascii: domain.unicodeScalars.first ?? "?")] + parts.flatMap { lengthPrefixed(Array($0.utf8)) }
    }
}
