// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomCrypto

/// One writer's (and user's) records of one type: what an access key and its generations belong to.
package struct AccessKeyScope: Sendable, Hashable {
    /// The writer (lowercase UUID).
    package var writerID: String
    /// The user (lowercase UUID).
    package var userID: String
    /// The record type.
    package var type: String

    package init(writerID: String, userID: String, type: String) {
        (self.writerID, self.userID, self.type) = (writerID, userID, type)
    }

    /// The slot of `readerID`'s EAK in this scope.
    package func slot(reader readerID: String) -> AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: readerID, type: type)
    }
}

/// A key rotation as the server commits it (docs/design/Revocation.md): generation `generation` of `scope`'s access
/// key, sealed to each reader in `eaks`, the readers in `revoke` losing their EAK and their reads — all in one
/// transaction, or nothing.
package struct AccessKeyRotation: Sendable, Hashable {
    package var scope: AccessKeyScope
    /// The new generation: the current one plus one.
    package var generation: Int
    /// Reader → its EAK of the new key: exactly the readers holding an EAK now, minus `revoke`.
    package var eaks: [String: String]
    /// Reader → its post-quantum wrap of the new key, for the readers that get one (the others get none).
    package var hybridEAKs: [String: String] = [:]
    /// The readers losing access.
    package var revoke: Set<String>
    /// Who sealed the new EAKs (the caller).
    package var authorizerID: String
    /// The current key sealed under the new one, kept as the new generation's link; nil stores none.
    package var previous: String?
    /// The key log leaf recording the new generation, appended in the rotation's transaction; nil logs none.
    package var logLeaf: KeyGenerationLeaf?

    package init(
        scope: AccessKeyScope,
        generation: Int,
        eaks: [String: String],
        revoke: Set<String>,
        authorizerID: String,
        previous: String? = nil,
        logLeaf: KeyGenerationLeaf? = nil
    ) {
        (self.scope, self.generation, self.eaks) = (scope, generation, eaks)
        (self.revoke, self.authorizerID, self.previous) = (revoke, authorizerID, previous)
        self.logLeaf = logLeaf
    }

    /// What became of a rotation.
    package enum Outcome: Sendable, Hashable {
        /// Committed.
        case rotated
        /// The type is at another generation than `generation - 1`: nothing changed.
        case staleGeneration(current: Int)
        /// `eaks` do not name exactly the readers holding an EAK minus `revoke`: nothing changed.
        case readersDiffer
    }
}
