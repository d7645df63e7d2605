// Strongroom — SPDX-License-Identifier: Apache-2.0
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Bech32 (BIP 173, the original checksum constant 1), the text form of age's keys. age lifts BIP 173's 90-character
/// limit (a post-quantum recipient is about 1,960 characters); here a string is at most ``maximumLength``.
enum Bech32 {
    /// The longest string decoded: room for a 1,216-byte key and its prefix.
    static let maximumLength = 4_096

    private static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = Int8(index) }
        return table
    }()

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var check: UInt32 = 1
        for value in values {
            let top = check >> 25
            check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
            for index in 0..<5 where (top >> UInt32(index)) & 1 == 1 { check ^= generator[index] }
        }
        return check
    }

    private static func expanded(_ prefix: [UInt8]) -> [UInt8] {
        prefix.map { $0 >> 5 } + [0] + prefix.map { $0 & 31 }
    }

    /// Regroups `values` of `from` bits into groups of `to` bits; nil when padding is not zero or too long.
    private static func regroup(_ values: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var accumulator = 0
        var bits = 0
        var result: [UInt8] = []
        result.reserveCapacity(values.count * from / to + 1)
        let mask = (1 << to) - 1
        for value in values {
            accumulator = (accumulator << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                result.append(UInt8((accumulator >> bits) & mask))
            }
            accumulator &= (1 << bits) - 1
        }
        if pad {
            if bits > 0 { result.append(UInt8((accumulator << (to - bits)) & mask)) }
        } else if bits >= from || (accumulator << (to - bits)) & mask != 0 {
            return nil
        }
        return result
    }

    /// `data` under `prefix` (lowercase ASCII), in lowercase.
    static func encode(prefix: String, _ data: some DataProtocol) -> String {
        let human = Array(prefix.utf8)
        // swift-format-ignore: NeverForceUnwrap
        let values = regroup(Array(data), from: 8, to: 5, pad: true)!  // padding on: always succeeds
        let check = polymod(expanded(human) + values + [0, 0, 0, 0, 0, 0]) ^ 1
        let checksum = (0..<6).map { UInt8((check >> UInt32(5 * (5 - $0))) & 31) }
        return prefix + "1" + String(decoding: (values + checksum).map { alphabet[Int($0)] }, as: UTF8.self)
    }

    /// The prefix (lowercased) and the bytes of `text`; nil when it is not Bech32: mixed case, a character outside
    /// the alphabet, a wrong checksum, non-zero padding, or longer than ``maximumLength``.
    static func decode(_ text: String) -> (prefix: String, data: Data)? {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength, bytes.allSatisfy({ (33...126).contains($0) }) else { return nil }
        let hasLower = bytes.contains { (97...122).contains($0) }
        let hasUpper = bytes.contains { (65...90).contains($0) }
        guard !(hasLower && hasUpper) else { return nil }
        let lower = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")), separator >= 1, lower.count - separator > 6
        else { return nil }
        let human = Array(lower[..<separator])
        var values: [UInt8] = []
        values.reserveCapacity(lower.count - separator - 1)
        for character in lower[(separator + 1)...] {
            let value = reverse[Int(character)]
            guard value >= 0 else { return nil }
            values.append(UInt8(value))
        }
        guard polymod(expanded(human) + values) == 1,
            let data = regroup(Array(values.dropLast(6)), from: 5, to: 8, pad: false)
        else { return nil }
        return (String(decoding: human, as: UTF8.self), Data(data))
    }
}
