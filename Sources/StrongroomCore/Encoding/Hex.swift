// Strongroom — SPDX-License-Identifier: Apache-2.0

extension Sequence<UInt8> {
    /// Lowercase hex digits, two per byte (random names, digests, tokens). Not for secrets you must wipe.
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
