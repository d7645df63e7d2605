// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The table-driven codec for **public** bytes (ciphertexts, nonces, signatures, public keys).
///
/// It runs in time that depends on the data, which is fine for bytes an observer may see anyway; secrets go
/// through libsodium's constant-time codec instead (``Base64URL/encode(_:)-(SecureBytes)`` and
/// ``Base64URL/decodeSecret(_:padding:)``). Decoding is as strict as libsodium's: the URL-safe alphabet only and
/// zero trailing bits.
enum PublicBase64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    /// 0–63 for alphabet bytes, 0xFF for anything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// The unpadded length of `count` bytes.
    static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Writes the unpadded encoding of `input` at the start of `output` (which holds at least
    /// ``encodedLength(_:)`` bytes) and returns the number written.
    static func encode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            let count = input.count
            var inIndex = 0
            var outIndex = 0
            while inIndex + 3 <= count {
                let value = UInt32(input[inIndex]) << 16 | UInt32(input[inIndex + 1]) << 8 | UInt32(input[inIndex + 2])
                output[outIndex] = table[Int(value >> 18)]
                output[outIndex + 1] = table[Int(value >> 12 & 63)]
                output[outIndex + 2] = table[Int(value >> 6 & 63)]
                output[outIndex + 3] = table[Int(value & 63)]
                inIndex += 3
                outIndex += 4
            }
            switch count - inIndex {
            case 1:
                let value = UInt32(input[inIndex]) << 16
                output[outIndex] = table[Int(value >> 18)]
                output[outIndex + 1] = table[Int(value >> 12 & 63)]
                outIndex += 2
            case 2:
                let value = UInt32(input[inIndex]) << 16 | UInt32(input[inIndex + 1]) << 8
                output[outIndex] = table[Int(value >> 18)]
                output[outIndex + 1] = table[Int(value >> 12 & 63)]
                output[outIndex + 2] = table[Int(value >> 6 & 63)]
                outIndex += 3
            default:
                break
            }
            return outIndex
        }
    }

    /// The decoded length of `count` unpadded characters, or nil when no valid encoding has that length.
    static func decodedLength(_ count: Int) -> Int? {
        count % 4 == 1 ? nil : count / 4 * 3 + max(0, count % 4 - 1)
    }

    /// Decodes unpadded text into `output` (which holds ``decodedLength(_:)`` bytes). Returns false for any byte
    /// outside the alphabet or non-zero trailing bits.
    static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        values.withUnsafeBufferPointer { table in
            let count = input.count
            var inIndex = 0
            var outIndex = 0
            var invalid: UInt8 = 0
            while inIndex + 4 <= count {
                let a = table[Int(input[inIndex])]
                let b = table[Int(input[inIndex + 1])]
                let c = table[Int(input[inIndex + 2])]
                let d = table[Int(input[inIndex + 3])]
                invalid |= (a | b | c | d) & 0xC0
                let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                output[outIndex] = UInt8(truncatingIfNeeded: value >> 16)
                output[outIndex + 1] = UInt8(truncatingIfNeeded: value >> 8)
                output[outIndex + 2] = UInt8(truncatingIfNeeded: value)
                inIndex += 4
                outIndex += 3
            }
            switch count - inIndex {
            case 0:
                break
            case 2:
                let a = table[Int(input[inIndex])]
                let b = table[Int(input[inIndex + 1])]
                invalid |= (a | b) & 0xC0
                if b & 0x0F != 0 { return false }
                output[outIndex] = UInt8(truncatingIfNeeded: UInt32(a) << 2 | UInt32(b) >> 4)
            case 3:
                let a = table[Int(input[inIndex])]
                let b = table[Int(input[inIndex + 1])]
                let c = table[Int(input[inIndex + 2])]
                invalid |= (a | b | c) & 0xC0
                if c & 0x03 != 0 { return false }
                let value = UInt32(a) << 10 | UInt32(b) << 4 | UInt32(c) >> 2
                output[outIndex] = UInt8(truncatingIfNeeded: value >> 8)
                output[outIndex + 1] = UInt8(truncatingIfNeeded: value)
            default:
                return false
            }
            return invalid == 0
        }
    }
}
