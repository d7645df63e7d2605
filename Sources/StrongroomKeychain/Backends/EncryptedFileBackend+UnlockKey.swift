// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import StrongroomCore
import StrongroomCrypto
import Synchronization

/// A keychain file's unlocked data key and the store it belongs to: what `strongroom agent` holds so a session of
/// commands derives the passphrase's Argon2id key once.
///
/// Package API: handing the data key out of the backend is for the CLI's agent only, never for an app.
package struct KeychainUnlockKey: Sendable {
    /// The keychain's random identity (a UUID, fixed when the file was made): the agent's key for the data key.
    package let storeID: String
    /// The 32-byte data key every item key is derived from.
    package let dataKey: SecureBytes

    package init(storeID: String, dataKey: SecureBytes) {
        self.storeID = storeID
        self.dataKey = dataKey
    }
}

extension EncryptedFileBackend {
    /// The store identity of the file, read without unlocking it.
    package var storeID: String {
        get throws(KeychainError) { try readSnapshot().document.storeID }
    }

    /// The data key `passphrase` unwraps (one Argon2id derivation per slot tried), with the store it opens.
    ///
    /// - Throws: ``KeychainError/Code/wrongPassphrase``; ``KeychainError/Code/io`` or `corrupted` for the file.
    package func unlockKey(passphrase: String) throws(KeychainError) -> KeychainUnlockKey {
        let document = try readSnapshot().document
        return KeychainUnlockKey(storeID: document.storeID, dataKey: try Self.unwrap(document, passphrase: passphrase))
    }

    /// Unlocks with a data key obtained earlier by ``unlockKey(passphrase:)`` — no key derivation.
    ///
    /// - Throws: ``KeychainError/Code/wrongPassphrase`` when the key is for another keychain (its store identity
    ///   differs) or is not 32 bytes.
    package func unlock(with key: KeychainUnlockKey) throws(KeychainError) {
        guard key.dataKey.count == 32, try key.storeID == storeID else {
            throw KeychainError(.wrongPassphrase, "the key is for another keychain")
        }
        let keys = try Self.deriveKeys(key.dataKey, storeID: key.storeID)
        state.withLock {
            $0.keys = SealedKeys(keys)
            $0.itemIDs = [:]
        }
    }
}
