// Strongroom — SPDX-License-Identifier: Apache-2.0

extension Sequence<UInt8> {
    /// Lowercase hex digits, two per byte (random names, digests, tokens). Not for secrets you must wipe.
    ///
    /// Inlinable, so it is specialized for the caller's sequence (a revision ID's digest is made per write).
    @inlinable
    package var hexString: String {
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(lowercaseHexDigit(byte >> 4))
            text.append(lowercaseHexDigit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The ASCII lowercase hex digit of a nibble (0 to 15).
@inlinable
package func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
}

/// The bytes of hex text (two digits per byte, either case), or nil for an odd length or a non-hex character.
/// Callers holding a secret wipe the result when done.
package func hexBytes(_ text: some StringProtocol) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let high = hexDigitValue(digits[index]), let low = hexDigitValue(digits[index + 1]) else { return nil }
        bytes.append(high << 4 | low)
    }
    return bytes
}

/// The value of one hex digit (either case), or nil for any other byte.
package func hexDigitValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}
