// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

@testable import StrongroomServer

/// The bearer token's format and its checks, byte by byte.
@Suite struct TokenIssuerTests {
    let keyBytes = Array("a token key of thirty-two bytes!".utf8)
    let clientID = "0b6d4a5e-8a44-4e4f-9d3b-2d0c8f4b1a77"
    var issuer: TokenIssuer { TokenIssuer(key: SecureBytes(copying: keyBytes)) }

    @Test("a token verifies to its client until its expiry plus the grace, and not after")
    func roundTrip() {
        let token = issuer.issue(clientID: clientID, expiresAt: 1_000)
        #expect(issuer.verify(token, now: 900) == clientID)
        #expect(issuer.verify(token, now: 1_030) == clientID)
        #expect(issuer.verify(token, now: 1_031) == nil)
        #expect(issuer.verify(token, now: 1_001, grace: 0) == nil)
        #expect(issuer.verify(("Bearer " + token).dropFirst(7), now: 900) == clientID)
    }

    @Test("tokens keep their format: HMAC-SHA256 over `client|expiry`, as swift-crypto computes it")
    func format() throws {
        let payload = Data("\(clientID)|1700000000".utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: keyBytes)))
        let expected = "sr1.\(Base64URL.encode(payload)).\(Base64URL.encode(mac))"
        #expect(issuer.issue(clientID: clientID, expiresAt: 1_700_000_000) == expected)
        #expect(issuer.verify(expected, now: 1_700_000_000) == clientID)
    }

    @Test("a token says when it was issued (a key change ends the tokens issued before); one without still verifies")
    func issueTime() {
        let token = issuer.issue(clientID: clientID, expiresAt: 1_000, issuedAt: 1_700_000_000_123_456)
        #expect(issuer.verified(token, now: 900)?.clientID == clientID)
        #expect(issuer.verified(token, now: 900)?.issued == 1_700_000_000_123_456)
        #expect(issuer.verified(issuer.issue(clientID: clientID, expiresAt: 1_000), now: 900)?.issued == nil)
        #expect(issuer.verified(token, now: 1_031) == nil)
    }

    @Test("a tampered, re-keyed or malformed token is not valid")
    func rejects() throws {
        let token = issuer.issue(clientID: clientID, expiresAt: 2_000)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Another client's payload under the original MAC, and a MAC with one character changed.
        let forged = "sr1.\(Base64URL.encode(Data("\(UUID().uuidString.lowercased())|2000".utf8))).\(parts[2])"
        var flipped = Array(parts[2].utf8)
        flipped[3] = flipped[3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let other = TokenIssuer(key: SecureBytes(copying: Array("another key".utf8)))
        let bad = [
            forged, "sr1.\(parts[1]).\(String(decoding: flipped, as: UTF8.self))",
            other.issue(clientID: clientID, expiresAt: 2_000),
            "", "sr1", "sr1.", "sr1..", "sr1.\(parts[1])", "sr1.\(parts[1]).", "sr2.\(parts[1]).\(parts[2])",
            "SR1.\(parts[1]).\(parts[2])", "sr1.\(parts[1]).\(parts[2]).x", "x.sr1.\(parts[1]).\(parts[2])",
            "sr1.\(parts[1])=.\(parts[2])", "sr1.\(parts[1]).\(parts[2])=", "sr1.\(parts[1]).\(parts[2].dropLast())",
            "sr1.!!!!.\(parts[2])", "sr1.\(parts[1]).é\(parts[2])",
        ]
        for token in bad { #expect(issuer.verify(token, now: 1_000) == nil, "\(token)") }
    }

    @Test("an authentic payload that is not `client|expiry` is refused (no crash on odd shapes)")
    func oddPayloads() {
        let key = HMACSHA256Key(SecureBytes(copying: keyBytes))
        for payload in [
            "", "|", "client", "client|", "|2000", "client|20|00", "client||2000", "client|x", "client|2000 ",
            "client|99999999999999999999", "client|2000|", "client|2000|x", "client|2000|1|2", "client|2000|-1",
        ] {
            let bytes = Array(payload.utf8)
            let mac = bytes.withUnsafeBytes { key.authenticationCode(for: $0) }
            let token = "sr1.\(Base64URL.encode(bytes)).\(Base64URL.encode(mac))"
            #expect(issuer.verify(token, now: 1_000) == nil, "\(payload)")
        }
    }
}
