// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// The link between access-key generations (docs/design/Revocation.md) against PyNaCl (`Vectors/pynacl/key-link.json`).
@Suite struct AccessKeyLinkTests {
    struct File: Decodable {
        struct Case: Decodable { let next, previous, nonce, link: String }
        let links: [Case]
    }

    private static func key(_ text: String) throws -> AccessKey {
        try AccessKey(rawRepresentation: SecureBytes(copying: try b64(text)))
    }

    @Test("a link opens to the previous key, and the same nonce seals the same link, as PyNaCl does")
    func vectors() throws {
        let file = try Vectors.load(File.self, "pynacl/key-link.json")
        #expect(file.links.count == 3)
        for item in file.links {
            let (next, previous) = (try Self.key(item.next), try Self.key(item.previous))
            #expect(try next.openLink(EncryptedAccessKey(wireFormat: item.link)) == previous)
            let sealed = next.sealingLink(to: previous, using: ReplayRandomSource([try b64(item.nonce)]))
            #expect(sealed.wireFormat == item.link)
        }
    }

    @Test("only the next generation's key opens a link: the previous key, another key and an altered link fail")
    func onlyTheNextKey() throws {
        let (previous, next) = (AccessKey(), AccessKey())
        let link = next.sealingLink(to: previous)
        #expect(try next.openLink(link) == previous)
        for wrong in [previous, AccessKey()] {
            let error = #expect(throws: CryptoError.self) { try wrong.openLink(link) }
            #expect(error?.code == .authenticationFailed)
        }
        var bytes = link.ciphertext
        bytes[bytes.startIndex] ^= 1
        let altered = try EncryptedAccessKey(
            wireFormat: Base64URL.encode(bytes) + "." + Base64URL.encode(link.nonce)
        )
        #expect(throws: CryptoError.self) { try next.openLink(altered) }
    }
}
