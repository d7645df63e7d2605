// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomCrypto
package import StrongroomWire

/// A client's key change as the server commits it (docs/design/KeyLog.md, "Client key changes"): its new keys, its
/// EAKs as a reader re-sealed to them, the old key kept on every EAK it sealed, and a `keysChanged` leaf — all in one
/// transaction, or nothing.
package struct KeyChange: Sendable, Hashable {
    /// The client (lowercase UUID).
    package var clientID: String
    /// The keys it replaces, exactly as stored: the change applies only while they are still current.
    package var old: (publicKey: PublicKeyObject, signingKey: SigningKeyObject)
    /// The keys it takes.
    package var new: (publicKey: PublicKeyObject, signingKey: SigningKeyObject)
    /// The index of the key leaf of `old`, which the new leaf names as its previous.
    package var previousLeaf: UInt64
    /// The new leaf's keys, bound to the client.
    package var entryKeys: KeyLogEntry.Keys
    /// The two signatures, old ‖ new.
    package var signatures: [UInt8]
    /// The SHA-256 of a new API secret, or nil to keep the current one.
    package var apiSecretHash: String?
    /// The client's EAKs as a reader, re-sealed: exactly the set it holds, each at its type's current generation.
    package var rewrapped: [RewrappedAccessKey]
    /// When (also the leaf's time).
    package var time: Timestamp

    package init(
        clientID: String,
        old: (publicKey: PublicKeyObject, signingKey: SigningKeyObject),
        new: (publicKey: PublicKeyObject, signingKey: SigningKeyObject),
        previousLeaf: UInt64,
        entryKeys: KeyLogEntry.Keys,
        signatures: [UInt8],
        apiSecretHash: String?,
        rewrapped: [RewrappedAccessKey],
        time: Timestamp
    ) {
        (self.clientID, self.old, self.new, self.previousLeaf) = (clientID, old, new, previousLeaf)
        (self.entryKeys, self.signatures, self.apiSecretHash) = (entryKeys, signatures, apiSecretHash)
        (self.rewrapped, self.time) = (rewrapped, time)
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.clientID == rhs.clientID && lhs.old == rhs.old && lhs.new == rhs.new && lhs.previousLeaf == rhs.previousLeaf
            && lhs.signatures == rhs.signatures && lhs.rewrapped == rhs.rewrapped && lhs.time == rhs.time
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(clientID)
        hasher.combine(signatures)
    }

    /// What committing a change found.
    package enum Outcome: Sendable, Hashable {
        /// Committed, logged at this leaf.
        case changed(leaf: UInt64)
        /// The client's keys or newest key leaf are no longer the ones the change replaces: another change won.
        case keysMoved
        /// The EAKs re-sealed are not exactly the ones the client holds, or one of their types rotated since.
        case heldKeysDiffer
    }
}
