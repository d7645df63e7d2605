// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A data key wrapped under a password, as ``KeychainKeyProvider`` stores it (the keychain item's secret):
///
/// ```json
/// {"version": 1, "kdf": "argon2id", "iterations": 3, "memory_bytes": 268435456, "salt": "<base64url, 16 bytes>",
///  "aead": "xchacha20poly1305", "sealed": "<base64url: 24-byte nonce ‖ ciphertext ‖ 16-byte tag>"}
/// ```
///
/// The key-encryption key is Argon2id(password, salt) with the recorded cost; the associated data is
/// `strongroom.datastore.key.v1` ‖ 0x00 ‖ the provider's identifier, so a record copied to another identifier does
/// not open. Costs are checked against `Argon2id.Parameters.minimum` and `maximum` before any
/// work, so a tampered record cannot make an open take minutes or gigabytes.
struct WrappedDataKey: Codable, Sendable {
    var version: Int
    var kdf: String
    var iterations: UInt64
    var memoryBytes: Int
    var salt: String
    var aead: String
    var sealed: String

    enum CodingKeys: String, CodingKey {
        case version, kdf, iterations, salt, aead, sealed
        case memoryBytes = "memory_bytes"
    }

    static let currentVersion = 1

    /// Wraps `dataKey` under `password`, with a fresh salt and nonce.
    static func wrap(
        _ dataKey: EncryptionKey,
        password: SecureBytes,
        identifier: String,
        parameters: Argon2id.Parameters
    ) throws(CryptoError) -> WrappedDataKey {
        let salt = SecureRandom.data(count: Argon2id.saltByteCount)
        let kek = try Argon2id.deriveKey(from: password, salt: salt, parameters: parameters)
        let sealed = try XChaCha20Poly1305.seal(dataKey.bytes, key: kek, associatedData: associatedData(identifier))
        return WrappedDataKey(
            version: currentVersion,
            kdf: "argon2id",
            iterations: parameters.iterations,
            memoryBytes: parameters.memoryBytes,
            salt: Base64URL.encode(salt),
            aead: "xchacha20poly1305",
            sealed: Base64URL.encode(sealed)
        )
    }

    /// The data key.
    ///
    /// - Throws: ``DatastoreError/Code/wrongPassword`` when it does not authenticate (a wrong password, or an
    ///   altered record); ``DatastoreError/Code/storage`` for a record of an unknown version or out-of-range costs.
    func unwrap(password: SecureBytes, identifier: String) throws(DatastoreError) -> EncryptionKey {
        guard version == Self.currentVersion, kdf == "argon2id", aead == "xchacha20poly1305" else {
            throw DatastoreError(.storage, "the wrapped data key has an unknown format")
        }
        let parameters = Argon2id.Parameters(iterations: iterations, memoryBytes: memoryBytes)
        let kek: SecureBytes
        let sealedBytes: Data
        do {
            try parameters.validate()
            let salt = try Base64URL.decode(salt, padding: .allowed)
            sealedBytes = try Base64URL.decode(sealed, padding: .allowed)
            kek = try Argon2id.deriveKey(from: password, salt: salt, parameters: parameters)
        } catch {
            throw DatastoreError(.storage, "the wrapped data key is damaged", underlying: error)
        }
        do {
            let key = try XChaCha20Poly1305.open(sealedBytes, key: kek, associatedData: Self.associatedData(identifier))
            return try EncryptionKey(key)
        } catch {
            throw DatastoreError(.wrongPassword, "the password does not unwrap the datastore key")
        }
    }

    private static func associatedData(_ identifier: String) -> Data {
        Data("strongroom.datastore.key.v1".utf8) + [0] + Data(identifier.utf8)
    }
}
