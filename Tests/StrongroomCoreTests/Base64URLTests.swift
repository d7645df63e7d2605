// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import Testing

@Suite struct Base64URLTests {
    @Test(
        "encodes without padding in the URL-safe alphabet",
        arguments: [
            ([], ""), ([0xFB], "-w"), ([0xFB, 0xFF], "-_8"), ([0xFB, 0xFF, 0xBF], "-_-_"), (Array("abc".utf8), "YWJj"),
        ] as [([UInt8], String)]
    )
    func encodes(bytes: [UInt8], expected: String) {
        #expect(Base64URL.encode(Data(bytes)) == expected)
    }

    @Test("decodes what it encodes, for every length up to 70")
    func roundTrips() throws {
        for length in 0...70 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test(
        "rejects malformed text by default",
        arguments: [
            "YWJj=", "YQ==", "Y", "YW+j", "YW/j", "YW j", "YW\u{0}j", "é", "YR",
        ]
    )
    func rejectsMalformed(text: String) {
        let error = #expect(throws: CoreError.self) { try Base64URL.decode(text) }
        #expect(error?.code == .invalidEncoding)
        let secretError = #expect(throws: CoreError.self) { try Base64URL.decodeSecret(text) }
        #expect(secretError?.code == .invalidEncoding)
    }

    @Test("the public (table) and secret (libsodium, constant-time) codecs agree on every length")
    func codecsAgree() throws {
        for length in 0...200 {
            let bytes = SecureRandom.data(count: length)
            let secret = SecureBytes(copying: bytes)
            let text = Base64URL.encode(bytes)
            #expect(text == Base64URL.encode(secret))
            #expect(try Base64URL.decode(text) == bytes)
            #expect(try Base64URL.decodeSecret(text) == secret)
        }
    }

    @Test("non-canonical trailing bits are rejected by both codecs", arguments: ["YR", "YWJ", "Zh", "Zm9"])
    func trailingBits(text: String) {
        #expect(throws: CoreError.self) { try Base64URL.decode(text) }
        #expect(throws: CoreError.self) { try Base64URL.decodeSecret(text) }
    }

    @Test("accepts padding only when allowed, and only complete groups")
    func padding() throws {
        #expect(try Base64URL.decode("YQ==", padding: .allowed) == Data("a".utf8))
        #expect(try Base64URL.decode("YWI=", padding: .allowed) == Data("ab".utf8))
        #expect(throws: CoreError.self) { try Base64URL.decode("YQ=", padding: .allowed) }
        #expect(throws: CoreError.self) { try Base64URL.decode("YQ===", padding: .allowed) }
    }

    @Test("decodes secrets into a wiping buffer")
    func decodesSecret() throws {
        let secret = try Base64URL.decodeSecret("AAECAwQ")
        #expect(secret == SecureBytes(copying: [0, 1, 2, 3, 4]))
        #expect(Base64URL.encode(secret) == "AAECAwQ")
    }
}
