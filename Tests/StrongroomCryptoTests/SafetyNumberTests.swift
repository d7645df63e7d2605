// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// Safety numbers against Python's `hashlib` (`Vectors/keylog/safety-number.json`).
@Suite struct SafetyNumberTests {
    struct File: Decodable {
        struct Client: Decodable {
            let clientID, encryptionKey, half: String
            let signingKey: String?
        }
        struct Pair: Decodable {
            let first, second: Int
            let code: String
        }
        let clients: [Client]
        let pairs: [Pair]
    }

    static func half(_ client: File.Client) throws -> SafetyNumber.Half {
        let bytes = try #require(hexBytes(client.clientID))
        let id = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        return SafetyNumber.Half(
            clientID: id,
            encryptionKey: try EncryptionPublicKey(base64URLEncoded: client.encryptionKey),
            signingKey: try client.signingKey.map { try SigningPublicKey(base64URLEncoded: $0) }
        )
    }

    @Test("each half and each pair's code match Python; both sides get the same code")
    func vectors() throws {
        let file = try Vectors.load(File.self, "keylog/safety-number.json")
        #expect(file.clients.count == 4 && file.pairs.count == 3)
        let halves = try file.clients.map(Self.half)
        for (half, client) in zip(halves, file.clients) { #expect(half.digits == client.half) }
        for pair in file.pairs {
            let code = SafetyNumber(halves[pair.first], halves[pair.second])
            #expect(code.digits == pair.code && code == SafetyNumber(halves[pair.second], halves[pair.first]))
            #expect(code.groups.count == 12 && code.groups.allSatisfy { $0.count == 5 })
        }
    }

    @Test("a typed code matches with spaces or dashes; a changed digit, a short code or junk does not")
    func matching() throws {
        let code = SafetyNumber(
            SafetyNumber.Half(clientID: UUID(), encryptionKey: EncryptionPrivateKey().publicKey, signingKey: nil),
            SafetyNumber.Half(clientID: UUID(), encryptionKey: EncryptionPrivateKey().publicKey, signingKey: nil)
        )
        #expect(code.matches(code.digits) && code.matches(code.description))
        #expect(code.matches(code.groups.joined(separator: "-")))
        var changed = Array(code.digits)
        changed[17] = changed[17] == "0" ? "1" : "0"
        #expect(!code.matches(String(changed)))
        #expect(!code.matches(String(code.digits.dropLast())))
        #expect(!code.matches(""))
        #expect(!code.matches(String(repeating: "1", count: 10_000)))
    }
}
