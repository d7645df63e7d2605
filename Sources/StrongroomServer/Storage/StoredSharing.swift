// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomWire

/// An EAK slot `(writer, user, reader, type)`.
package struct StoredAccessKey: Sendable, Hashable {
    /// The writer (lowercase UUID).
    package var writerID: String
    /// The user (lowercase UUID).
    package var userID: String
    /// The reader (lowercase UUID).
    package var readerID: String
    /// The record type.
    package var type: String
    /// The access key sealed to the reader (`ciphertext.nonce`); empty when only `hybridEAK` seals it.
    package var eak: String
    /// The post-quantum wrap of the same key (X-Wing HPKE signed by the authorizer); nil when none was stored.
    package var hybridEAK: String? = nil
    /// The client that stored this EAK (whose key sealed it).
    package var authorizerID: String
    /// The public key that sealed it, kept when its authorizer replaced its keys since; nil: the authorizer's
    /// current key.
    package var authorizerKey: PublicKeyObject? = nil
}

/// Where an encrypted access key and its sharing policy live: one writer's (and user's) records of one type, as one
/// reader sees them. Store functions take a slot instead of four adjacent strings that a swap would mix up.
package struct AccessKeySlot: Sendable, Hashable {
    /// The writer (lowercase UUID).
    package var writerID: String
    /// The user (lowercase UUID).
    package var userID: String
    /// The reader (lowercase UUID).
    package var readerID: String
    /// The record type.
    package var type: String

    /// Names a slot.
    package init(writerID: String, userID: String, readerID: String, type: String) {
        self.writerID = writerID
        self.userID = userID
        self.readerID = readerID
        self.type = type
    }

    /// The writer's (and user's) records of the type, whatever the reader.
    package var scope: AccessKeyScope { AccessKeyScope(writerID: writerID, userID: userID, type: type) }

    /// The same writer, user and type, for another reader.
    package func withReader(_ readerID: String) -> AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type)
    }
}

extension StoredAccessKey {
    /// The slot this key fills.
    package var slot: AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type)
    }

    /// A key for `slot`, stored by `authorizerID`.
    package init(slot: AccessKeySlot, eak: String, hybridEAK: String? = nil, authorizerID: String) {
        self.init(
            writerID: slot.writerID,
            userID: slot.userID,
            readerID: slot.readerID,
            type: slot.type,
            eak: eak,
            hybridEAK: hybridEAK,
            authorizerID: authorizerID
        )
    }
}

extension StoredPolicy {
    /// The slot this policy governs.
    package var slot: AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type)
    }

    /// No flags yet, for `slot`.
    package init(slot: AccessKeySlot) {
        self.init(
            userID: slot.userID,
            writerID: slot.writerID,
            readerID: slot.readerID,
            type: slot.type,
            canRead: false,
            isAuthorizer: false,
            authorizedBy: nil,
            readGrantedBy: nil
        )
    }
}

/// The sharing flags of `(user, writer, reader, type)`.
package struct StoredPolicy: Sendable, Hashable {
    /// The user (lowercase UUID).
    package var userID: String
    /// The writer (lowercase UUID).
    package var writerID: String
    /// The reader (lowercase UUID).
    package var readerID: String
    /// The record type.
    package var type: String
    /// Whether the reader may read records of the type.
    package var canRead: Bool
    /// Whether the reader may share the type on the writer's behalf.
    package var isAuthorizer: Bool
    /// Who granted the authorizer flag.
    package var authorizedBy: String?
    /// Who last granted `canRead` (the writer, or an authorizer on its behalf).
    package var readGrantedBy: String?
}

/// One page of a listing.
package struct ListingPage: Sendable, Hashable {
    /// Entries at most.
    package var limit: Int
    /// Entries skipped.
    package var offset: Int

    /// Describes a page.
    package init(limit: Int, offset: Int) {
        self.limit = limit
        self.offset = offset
    }
}
