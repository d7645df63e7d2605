// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// `HMACSHA256Key` against RFC 4231's test cases (`Vectors/rfc4231/hmac-sha256.json`) and swift-crypto's `HMAC`.
@Suite struct HMACSHA256KeyTests {
    struct File: Decodable {
        struct Case: Decodable { let key, data, hmacSHA256: String }
        let cases: [Case]
    }

    @Test("RFC 4231's seven cases, including keys longer than a block")
    func rfc4231() throws {
        let file = try Vectors.load(File.self, "rfc4231/hmac-sha256.json")
        #expect(file.cases.count == 7)
        for item in file.cases {
            let key = HMACSHA256Key(SecureBytes(copying: try hex(item.key)))
            let data = try hex(item.data)
            let expected = try hex(item.hmacSHA256)
            let code = data.withUnsafeBytes { key.authenticationCode(for: $0) }
            #expect(code == expected)
            #expect(
                expected.withUnsafeBytes { c in
                    data.withUnsafeBytes { key.isValidAuthenticationCode(c, authenticating: $0) }
                }
            )
        }
    }

    @Test("the same codes as swift-crypto's HMAC, from an empty message to several blocks")
    func matchesSwiftCrypto() {
        let keyBytes = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let key = HMACSHA256Key(SecureBytes(copying: keyBytes))
        for length in [0, 1, 55, 56, 63, 64, 65, 200, 1000] {
            let message = (0..<length).map { UInt8(($0 * 31 + 7) % 251) }
            let reference = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: keyBytes)))
            #expect(message.withUnsafeBytes { key.authenticationCode(for: $0) } == reference, "length \(length)")
        }
        #expect(
            key.authenticationCode(for: "sr1")
                == Array(HMAC<SHA256>.authenticationCode(for: Data("sr1".utf8), using: SymmetricKey(data: keyBytes)))
        )
    }

    @Test("a flipped bit, a short or long code, another message or another key is not valid")
    func rejects() {
        let key = HMACSHA256Key(SecureBytes(copying: Array("a token key".utf8)))
        let message = Array("client|1700000000".utf8)
        let code = message.withUnsafeBytes { key.authenticationCode(for: $0) }
        func valid(_ code: [UInt8], _ message: [UInt8], under key: HMACSHA256Key) -> Bool {
            code.withUnsafeBytes { c in message.withUnsafeBytes { key.isValidAuthenticationCode(c, authenticating: $0) }
            }
        }
        #expect(valid(code, message, under: key))
        for bit in [0, 7, 100, 255] {
            var flipped = code
            flipped[bit / 8] ^= 1 << (bit % 8)
            #expect(!valid(flipped, message, under: key))
        }
        #expect(!valid(Array(code.dropLast()), message, under: key))
        #expect(!valid(code + [0], message, under: key))
        #expect(!valid([], message, under: key))
        #expect(!valid(code, Array("client|1700000001".utf8), under: key))
        #expect(!valid(code, message, under: HMACSHA256Key(SecureBytes(copying: Array("another key".utf8)))))
    }

    private func hex(_ text: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(try #require(UInt8(text[index..<next], radix: 16)))
            index = next
        }
        return bytes
    }
}
