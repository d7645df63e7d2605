// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto
import Synchronization

/// The cryptography of the file: passphrase slots (Argon2id), subkeys (HKDF), item IDs (HMAC) and sealed items
/// (XChaCha20-Poly1305 with associated data binding each to its store, ID and policy).
extension EncryptedFileBackend {
    static func makeSlot(
        dataKey: SecureBytes,
        passphrase: String,
        parameters: Argon2id.Parameters,
        storeID: String
    ) throws(KeychainError) -> KeychainDocument.Slot {
        let kdf = KeychainDocument.KDF(
            iterations: parameters.iterations,
            memoryBytes: parameters.memoryBytes,
            salt: SecureRandom.data(count: Argon2id.saltByteCount)
        )
        let id = UUID().uuidString.lowercased()
        let kek = try passphraseKey(passphrase, kdf)
        return KeychainDocument.Slot(id: id, kdf: kdf, wrappedKey: try seal(dataKey, kek, slotAAD(storeID, id, kdf)))
    }

    static func passphraseKey(
        _ passphrase: String,
        _ kdf: KeychainDocument.KDF
    ) throws(KeychainError)
        -> SecureBytes
    {
        guard kdf.algorithm == "argon2id13" else { throw KeychainError(.corrupted, "unknown KDF \(kdf.algorithm)") }
        do {
            // deriveKey validates the stored parameters against Argon2id.Parameters.maximum (a hostile file cannot
            // make opening it take unbounded time or memory).
            return try Argon2id.deriveKey(fromPassword: passphrase, salt: kdf.salt, parameters: kdf.parameters)
        } catch {
            throw KeychainError(.invalidParameters, "the key-derivation parameters are refused: \(error.message)")
        }
    }

    static func slotAAD(_ storeID: String, _ slotID: String, _ kdf: KeychainDocument.KDF) -> Data {
        Data(
            "strongroom.keychain.v1 slot|\(storeID)|\(slotID)|\(kdf.algorithm)|\(kdf.iterations)|\(kdf.memoryBytes)|\(kdf.salt.base64EncodedString())"
                .utf8
        )
    }

    /// The data key from the first slot `passphrase` opens.
    static func unwrap(_ document: KeychainDocument, passphrase: String) throws(KeychainError) -> SecureBytes {
        try openSlot(document, passphrase: passphrase).dataKey
    }

    /// The first slot `passphrase` opens and its data key (one Argon2id derivation per slot tried).
    static func openSlot(
        _ document: KeychainDocument,
        passphrase: String
    ) throws(KeychainError) -> (index: Int, dataKey: SecureBytes) {
        for (index, slot) in document.slots.enumerated() {
            do {
                try slot.kdf.parameters.validate()
            } catch {
                throw KeychainError(
                    .invalidParameters,
                    "a slot's key-derivation parameters are refused: \(error.message)"
                )
            }
            if let key = open(slot, passphrase: passphrase, storeID: document.storeID) { return (index, key) }
        }
        throw KeychainError(.wrongPassphrase, "the passphrase does not open this keychain")
    }

    static func open(_ slot: KeychainDocument.Slot, passphrase: String, storeID: String) -> SecureBytes? {
        // Trial opening: nil means this passphrase does not open this slot; the caller tries the next.
        guard let kek = try? passphraseKey(passphrase, slot.kdf) else { return nil }
        return try? XChaCha20Poly1305.open(
            slot.wrappedKey,
            key: kek,
            associatedData: slotAAD(storeID, slot.id, slot.kdf)
        )
    }

    static func deriveKeys(_ dataKey: SecureBytes, storeID: String) throws(KeychainError) -> Keys {
        Keys(
            index: try derive(dataKey, storeID, "index"),
            meta: try derive(dataKey, storeID, "meta"),
            afterFirstUnlock: try derive(dataKey, storeID, "after-first-unlock"),
            whenUnlocked: try derive(dataKey, storeID, "when-unlocked")
        )
    }

    static func derive(
        _ dataKey: SecureBytes,
        _ storeID: String,
        _ purpose: String
    ) throws(KeychainError)
        -> SecureBytes
    {
        do {
            return try HKDFSHA256.deriveKey(
                from: dataKey,
                salt: Data(storeID.utf8),
                label: "strongroom.keychain.v1 \(purpose)"
            )
        } catch {
            throw KeychainError(.invalidParameters, "a subkey could not be derived")
        }
    }

    /// The item ID of `identity` (an HMAC of its canonical form under the index key), remembered per identity.
    func itemID(_ identity: ItemIdentity, _ keys: Keys) -> String {
        if let id = state.withLock({ $0.itemIDs[identity] }) { return id }
        let mac = keys.index.withUnsafeBytes { key in
            HMAC<SHA256>.authenticationCode(for: Data(identity.canonical.utf8), using: SymmetricKey(data: key))
        }
        let id = Base64URL.encode(Data(mac))
        state.withLock {
            if $0.itemIDs.count >= Self.cacheLimit { $0.itemIDs = [:] }
            $0.itemIDs[identity] = id
        }
        return id
    }

    static func aad(_ storeID: String, _ id: String, _ policy: String, _ part: String) -> Data {
        Data("strongroom.keychain.v1 item|\(storeID)|\(id)|\(policy)|\(part)".utf8)
    }

    static func seal(_ plaintext: SecureBytes, _ key: SecureBytes, _ aad: Data) throws(KeychainError) -> Data {
        do {
            return try XChaCha20Poly1305.seal(plaintext, key: key, associatedData: aad)
        } catch {
            throw KeychainError(.invalidParameters, "an item could not be sealed")
        }
    }

    static func open(_ sealed: Data, _ key: SecureBytes, _ aad: Data) throws(KeychainError) -> SecureBytes {
        do {
            return try XChaCha20Poly1305.open(sealed, key: key, associatedData: aad)
        } catch {
            throw KeychainError(.tampered, "an item does not authenticate: altered, or sealed under another identity")
        }
    }

    /// One encoder for every item's information (JSONEncoder is thread-safe once configured).
    static let infoEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }()

    static func encodeInfo(_ info: ItemInfo) throws(KeychainError) -> SecureBytes {
        guard let data = try? infoEncoder.encode(info) else {
            throw KeychainError(.io, "item information could not be encoded")
        }
        return SecureBytes(copying: data)
    }

    static func openInfo(
        _ sealed: KeychainDocument.SealedItem,
        _ keys: Keys,
        _ storeID: String
    ) throws(KeychainError)
        -> ItemInfo
    {
        let plain = try open(sealed.meta, keys.meta, aad(storeID, sealed.id, sealed.policy, "meta"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let info = plain.withUnsafeBytes({ try? decoder.decode(ItemInfo.self, from: Data($0)) }) else {
            throw KeychainError(.tampered, "an item's information does not decode")
        }
        return info
    }
}
