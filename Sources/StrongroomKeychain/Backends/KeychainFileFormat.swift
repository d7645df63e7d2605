// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import StrongroomCore
import StrongroomCrypto

/// The keychain file (JSON, version 1). Nothing in it is readable without a passphrase: item identities, labels,
/// dates and secrets are all sealed; item IDs are HMACs of the identity.
///
/// ```
/// { "format": "strongroom.keychain", "version": 1, "store_id": "<uuid>", "generation": 7,
///   "slots": [ { "id": "<uuid>", "kdf": { "algorithm": "argon2id13", "iterations": 3, "memory_bytes": 268435456,
///                "salt": "<b64>" }, "wrapped_key": "<b64: nonce ‖ XChaCha20-Poly1305(data key)>" } ],
///   "items": [ { "id": "<b64url HMAC-SHA256(index key, identity)>", "policy": "whenUnlocked",
///                "meta": "<b64 sealed ItemInfo>", "secret": "<b64 sealed value>" } ] }
/// ```
struct KeychainDocument: Codable, Equatable {
    var format = "strongroom.keychain"
    var version = 1
    var storeID: String
    var generation: Int
    var slots: [Slot]
    var items: [SealedItem]

    struct Slot: Codable, Equatable {
        var id: String
        var kdf: KDF
        var wrappedKey: Data

        enum CodingKeys: String, CodingKey {
            case id, kdf
            case wrappedKey = "wrapped_key"
        }
    }

    struct KDF: Codable, Equatable {
        var algorithm = "argon2id13"
        var iterations: UInt64
        var memoryBytes: Int
        var salt: Data

        var parameters: Argon2id.Parameters { Argon2id.Parameters(iterations: iterations, memoryBytes: memoryBytes) }

        enum CodingKeys: String, CodingKey {
            case algorithm, iterations, salt
            case memoryBytes = "memory_bytes"
        }
    }

    struct SealedItem: Codable, Equatable {
        var id: String
        var policy: String
        var meta: Data
        var secret: Data
    }

    enum CodingKeys: String, CodingKey {
        case format, version, generation, slots, items
        case storeID = "store_id"
    }

    /// The largest generation a file may hold (2⁵³, exact in every JSON reader); a write adds one.
    static let maximumGeneration = 1 << 53
    /// The most key slots a file may hold (each may cost an Argon2id derivation to try).
    static let maximumSlots = 16

    /// Parses and checks the envelope.
    static func decode(_ data: Data) throws(KeychainError) -> KeychainDocument {
        let document: KeychainDocument
        do {
            document = try JSONDecoder().decode(KeychainDocument.self, from: data)
        } catch {
            throw KeychainError(.corrupted, "the keychain file is not a complete keychain (truncated or damaged)")
        }
        guard document.format == "strongroom.keychain" else {
            throw KeychainError(.corrupted, "the file is not a Strongroom keychain")
        }
        guard document.version == 1 else {
            throw KeychainError(.corrupted, "keychain format version \(document.version) is not supported")
        }
        guard !document.slots.isEmpty else { throw KeychainError(.corrupted, "the keychain has no key slot") }
        // Numbers from a file are range-checked as strictly as numbers from the wire: the generation is
        // incremented on every write, so it must leave room for that.
        guard (1...maximumGeneration).contains(document.generation) else {
            throw KeychainError(.corrupted, "the keychain's generation \(document.generation) is out of range")
        }
        guard document.slots.count <= maximumSlots else {
            throw KeychainError(
                .corrupted,
                "the keychain has \(document.slots.count) key slots; at most \(maximumSlots)"
            )
        }
        return document
    }

    func encoded() throws(KeychainError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(self)
        } catch {
            throw KeychainError(.io, "the keychain could not be encoded")
        }
    }
}
