// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// Re-wrapping a field for a key rotation (docs/design/Revocation.md): only the data key's wrap changes.
@Suite struct FieldRewrapTests {
    @Test("a re-wrapped field opens under the new key only, with the same value ciphertext and plaintext")
    func rewrap() throws {
        let (old, new) = (AccessKey(), AccessKey())
        let field = FieldCipher.encrypt("a secret value 🗝", with: old)
        let rewrapped = try FieldCipher.rewrap(field, from: old, to: new)
        #expect(try FieldCipher.decrypt(rewrapped, with: new) == "a secret value 🗝")
        #expect(throws: CryptoError.self) { try FieldCipher.decrypt(rewrapped, with: old) }
        #expect(rewrapped.encryptedValue == field.encryptedValue && rewrapped.valueNonce == field.valueNonce)
        #expect(rewrapped.encryptedDataKey != field.encryptedDataKey && rewrapped.dataKeyNonce != field.dataKeyNonce)
        #expect(FieldCipher.isSealed(rewrapped, under: new) && !FieldCipher.isSealed(rewrapped, under: old))
        // The wire form parses back to the same field (what the server stores and the official SDKs read).
        #expect(try EncryptedField(wireFormat: rewrapped.wireFormat) == rewrapped)
    }

    @Test("a field not under the old key is refused: authenticationFailed, nothing sealed")
    func wrongOldKey() throws {
        let field = FieldCipher.encrypt("v", with: AccessKey())
        let error = #expect(throws: CryptoError.self) {
            try FieldCipher.rewrap(field, from: AccessKey(), to: AccessKey())
        }
        #expect(error?.code == .authenticationFailed)
    }
}
