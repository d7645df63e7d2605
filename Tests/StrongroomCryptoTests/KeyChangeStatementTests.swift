// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// Key change statements against PyNaCl (`Vectors/keylog/key-change.json`).
@Suite struct KeyChangeStatementTests {
    struct File: Decodable {
        struct Change: Decodable {
            let clientID, oldEncryptionKey, oldSigningSeed, newEncryptionKey, newSigningSeed: String
            let signed, oldSignature, newSignature: String
        }
        let changes: [Change]
    }

    static func statement(_ change: File.Change) throws -> (KeyChangeStatement, SigningPrivateKey, SigningPrivateKey) {
        let bytes = try #require(hexBytes(change.clientID))
        let id = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        let oldKey = try SigningPrivateKey(seed: SecureBytes(copying: try Base64URL.decode(change.oldSigningSeed)))
        let newKey = try SigningPrivateKey(seed: SecureBytes(copying: try Base64URL.decode(change.newSigningSeed)))
        let statement = KeyChangeStatement(
            clientID: id,
            old: (try EncryptionPublicKey(base64URLEncoded: change.oldEncryptionKey), oldKey.publicKey),
            new: (try EncryptionPublicKey(base64URLEncoded: change.newEncryptionKey), newKey.publicKey)
        )
        return (statement, oldKey, newKey)
    }

    @Test("the signed bytes and both signatures match PyNaCl; the vectors' signatures verify")
    func vectors() throws {
        let file = try Vectors.load(File.self, "keylog/key-change.json")
        #expect(file.changes.count == 3)
        for change in file.changes {
            let (statement, oldKey, newKey) = try Self.statement(change)
            #expect(Base64URL.encode(statement.signedBytes) == change.signed)
            #expect(statement.signedBytes.count == KeyChangeStatement.byteCount)
            let signatures = try statement.signatures(old: oldKey, new: newKey)
            #expect(Base64URL.encode(signatures.old) == change.oldSignature)
            #expect(Base64URL.encode(signatures.new) == change.newSignature)
            try statement.verify(
                old: try Base64URL.decode(change.oldSignature),
                new: try Base64URL.decode(change.newSignature)
            )
        }
    }

    @Test("swapped, truncated or foreign signatures, a key kept, and signing with other keys are refused")
    func refusals() throws {
        let file = try Vectors.load(File.self, "keylog/key-change.json")
        let (statement, oldKey, newKey) = try Self.statement(file.changes[0])
        let (other, _, _) = try Self.statement(file.changes[1])
        let signatures = try statement.signatures(old: oldKey, new: newKey)
        let refused: [(Data, Data)] = [
            (signatures.new, signatures.old),
            (signatures.old.dropLast(), signatures.new),
            (signatures.old, signatures.new + [0]),
            (oldKey.signature(for: other.signedBytes), signatures.new),
            (signatures.old, SigningPrivateKey().signature(for: statement.signedBytes)),
        ]
        for (old, new) in refused {
            #expect(throws: CryptoError.self) { try statement.verify(old: old, new: new) }
        }
        let kept = KeyChangeStatement(
            clientID: statement.clientID,
            old: statement.old,
            new: (statement.old.encryption, newKey.publicKey)
        )
        let keptSignatures = try kept.signatures(old: oldKey, new: newKey)
        #expect(throws: CryptoError.self) { try kept.verify(old: keptSignatures.old, new: keptSignatures.new) }
        #expect(throws: CryptoError.self) { try statement.signatures(old: newKey, new: oldKey) }
    }
}
