// Strongroom — SPDX-License-Identifier: Apache-2.0

/// RFC 3986 percent-encoding of UTF-8 text: the unreserved characters (`A-Z a-z 0-9 - . _ ~`) stay, every other byte
/// becomes `%XX` (uppercase hex). What TSV1's query canonicalisation (Python's `quote_plus`) and AWS Signature V4
/// both sign, each with its one difference as an option.
package enum PercentEncoding {
    /// `text` percent-encoded; `spaceAsPlus` writes a space as `+` (`quote_plus`), `keepingSlash` leaves `/` as it
    /// is (a SigV4 path).
    package static func encode(_ text: String, spaceAsPlus: Bool = false, keepingSlash: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                output.append(UInt8(ascii: "+"))
            case UInt8(ascii: "/") where keepingSlash:
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
