// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
package import StrongroomCrypto
package import StrongroomWire

/// A leaf to append to the key log, with what a commitment opens to (kept in the database for the parties, never
/// in the leaf).
package struct PendingKeyLogLeaf: Sendable, Hashable {
    /// The leaf.
    package var entry: KeyLogEntry
    /// A commitment's 32-byte salt.
    package var salt: [UInt8]?
    /// The other party of a commitment: the reader of an access grant, the authorizer of an authorizer grant.
    package var party: String?
    /// An access grant's user.
    package var userID: String?
    /// The record type a commitment is about.
    package var type: String?
    /// A commitment's writer: inside the commitment, not in the leaf, so kept here for the parties.
    package var writerID: String?
    /// A key change's signatures by the old and the new signing key (64 bytes each).
    package var signatures: [UInt8]?

    package init(
        entry: KeyLogEntry,
        salt: [UInt8]? = nil,
        party: String? = nil,
        userID: String? = nil,
        type: String? = nil,
        writerID: String? = nil,
        signatures: [UInt8]? = nil
    ) {
        (self.entry, self.salt, self.party, self.userID, self.type) = (entry, salt, party, userID, type)
        (self.writerID, self.signatures) = (writerID, signatures)
    }

    /// The client the row is about (its `client_id`): a key leaf's owner, a commitment's writer.
    package var clientID: String { writerID ?? entry.clientID.uuidString.lowercased() }

    /// The registration leaf of `client`, or nil when its keys are not what a leaf binds (an X25519 key and, if it
    /// registered one, an Ed25519 signing key): a NIST-mode client is not in the log, and verifying clients refuse
    /// its keys.
    package init?(registering client: StoredClient) {
        let signing = client.signingKey?.ed25519.flatMap { $0.isEmpty ? nil : $0 }
        let signingKey = signing.flatMap { try? SigningPublicKey(base64URLEncoded: $0) }  // unusable: not logged
        guard let id = UUID(uuidString: client.clientID), let encryption = client.publicKey.curve25519,
            let encryptionKey = try? EncryptionPublicKey(base64URLEncoded: encryption),  // as above
            signing == nil || signingKey != nil, client.created.microseconds >= 0,
            let entry = try? KeyLogEntry(  // refused keys (small order): not logged
                keysOf: id,
                KeyLogEntry.Keys(encryption: encryptionKey, signing: signingKey, previous: nil),
                registration: true,
                time: UInt64(client.created.microseconds)
            )
        else { return nil }
        self.init(entry: entry)
    }

    /// A commitment to `slot`'s access key being shared with its reader (or unshared), with a fresh salt.
    package static func access(_ kind: KeyLogEntry.Kind, _ slot: AccessKeySlot, time: Timestamp) throws -> Self {
        guard let writer = UUID(uuidString: slot.writerID), let user = UUID(uuidString: slot.userID),
            let reader = UUID(uuidString: slot.readerID)
        else { throw ServerError.badRequest("client IDs are UUIDs") }
        let salt = [UInt8](SecureRandom.data(count: 32))
        let commitment = try KeyLogCommitment.access(
            kind,
            writer: writer,
            user: user,
            reader: reader,
            type: slot.type,
            salt: salt
        )
        return Self(
            entry: try KeyLogEntry(kind, commitment: commitment, time: Self.coarsened(time)),
            salt: salt,
            party: slot.readerID,
            userID: slot.userID,
            type: slot.type,
            writerID: writer.uuidString.lowercased()
        )
    }

    /// The leaf recording `scope`'s rotation to a new generation (kept under the writer, with the user and type, so
    /// the type's holders can be served it; it has no salt and no other party).
    package static func rotation(_ leaf: KeyGenerationLeaf, of scope: AccessKeyScope, time: Timestamp) throws -> Self {
        Self(
            entry: try leaf.entry(time: Self.coarsened(time)),
            userID: scope.userID,
            type: scope.type,
            writerID: scope.writerID
        )
    }

    /// A grant, revocation or authorizer leaf's time: rounded down to the whole hour (in microseconds), so that the
    /// log, which every registered client may read, does not time each writer's sharing to the microsecond; key
    /// leaves keep their exact time (a client's own history).
    static func coarsened(_ time: Timestamp) -> UInt64 {
        let hour: Int64 = 3_600_000_000
        let microseconds = max(0, time.microseconds)
        return UInt64(microseconds - microseconds % hour)
    }

    /// A commitment to `authorizer` being allowed (or no longer allowed) to share `writer`'s records of `type`.
    package static func authorizer(
        _ kind: KeyLogEntry.Kind,
        writerID: String,
        userID: String,
        authorizerID: String,
        type: String,
        time: Timestamp
    ) throws -> Self {
        guard let writer = UUID(uuidString: writerID), let authorizer = UUID(uuidString: authorizerID) else {
            throw ServerError.badRequest("client IDs are UUIDs")
        }
        let salt = [UInt8](SecureRandom.data(count: 32))
        let commitment = try KeyLogCommitment.authorizer(
            kind,
            writer: writer,
            authorizer: authorizer,
            type: type,
            salt: salt
        )
        return Self(
            entry: try KeyLogEntry(kind, commitment: commitment, time: Self.coarsened(time)),
            salt: salt,
            party: authorizerID,
            userID: userID,
            type: type,
            writerID: writer.uuidString.lowercased()
        )
    }
}

/// One stored leaf of the key log.
package struct StoredKeyLogLeaf: Sendable, Hashable {
    /// Its index, from 0.
    package var index: UInt64
    /// The leaf's bytes (a ``KeyLogEntry``'s encoding).
    package var entry: [UInt8]
    /// The client it is about.
    package var clientID: String
    /// The entry's kind.
    package var kind: UInt8
    /// A commitment's salt.
    package var salt: [UInt8]?
    /// A commitment's other party.
    package var party: String?
    /// An access grant's user.
    package var userID: String?
    /// A commitment's record type.
    package var type: String?
    /// A key change's signatures by the old and the new signing key (64 bytes each).
    package var signatures: [UInt8]? = nil
}
