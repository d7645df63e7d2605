// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key that names a client's replicated datastores: the E3DB record type of datastore `N` is
/// `sr1.` followed by the first 22 characters of base64url(HMAC-SHA-256(key, len(N) ‖ N)), where `len` is a 4-byte
/// big-endian length. The server sees only that opaque name, never the datastore's.
///
/// The key is HKDF-SHA-256 of the client's X25519 private key (salt: the client ID, info:
/// `strongroom.sync.type.v1`), so every device of the client — they share its profile — derives the same names, and
/// nobody else can. Members of a shared datastore learn its type from the share itself.
public struct ReplicationTypeKey: Sendable {
    /// The prefix of every replicated datastore's record type.
    public static let typePrefix = ReplicatedType.prefix
    static let label = "strongroom.sync.type.v1"

    private let key: HMACSHA256Key

    /// The key of the client `clientID` whose private encryption key is `privateKey`.
    public init(privateKey: EncryptionPrivateKey, clientID: String) throws(SyncError) {
        do {
            let derived = try HKDFSHA256.deriveKey(
                from: privateKey.rawRepresentation,
                salt: Data(clientID.utf8),
                label: Self.label
            )
            key = HMACSHA256Key(derived)
        } catch {
            throw SyncError(.invalidKey, "the replication type key could not be derived", underlying: error)
        }
    }

    /// The record type of the datastore named `name`.
    ///
    /// - Throws: ``SyncError/Code/invalidName`` when `name` is empty or longer than
    ///   ``ReplicationLimits/maximumNameBytes``.
    public func recordType(forDatastoreNamed name: String) throws(SyncError) -> String {
        let bytes = Array(name.utf8)
        guard (1...ReplicationLimits.maximumNameBytes).contains(bytes.count) else {
            throw SyncError(.invalidName, "a datastore name is 1 to \(ReplicationLimits.maximumNameBytes) bytes")
        }
        let message = TagEncoding.lengthPrefixed(bytes)
        let code = message.withUnsafeBytes { key.authenticationCode(for: $0) }
        return Self.typePrefix + String(Base64URL.encode(Data(code)).prefix(22))
    }
}
