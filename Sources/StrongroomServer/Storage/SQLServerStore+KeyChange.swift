// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCrypto
import StrongroomWire

/// Client key changes (docs/design/KeyLog.md): the EAKs a client holds as a reader, and the transaction that
/// replaces its keys.
extension SQLServerStore {
    package func heldAccessKeys(reader: String, start: Int, limit: Int) async throws -> [(StoredAccessKey, Int)] {
        guard start >= 0, limit > 0 else { return [] }
        return try await database.raw(
            """
            SELECT a.*, COALESCE(g.generation, 1) AS generation FROM access_keys a
            LEFT JOIN access_key_generations g ON g.writer_id = a.writer_id AND g.user_id = a.user_id
            AND g.type = a.type WHERE a.reader_id = \(bind: reader)
            ORDER BY a.writer_id, a.user_id, a.type LIMIT \(bind: limit) OFFSET \(bind: start)
            """
        ).all().map { row in (try decodeAccessKey(row), try row.decode(column: "generation", as: Int.self)) }
    }

    package func changeKeys(_ change: KeyChange) async throws -> KeyChange.Outcome {
        let (oldKey, newKey) = (try json(change.old.publicKey), try json(change.new.publicKey))
        let (oldSigning, newSigning) = (try json(change.old.signingKey), try json(change.new.signingKey))
        guard let id = UUID(uuidString: change.clientID), change.time.microseconds >= 0 else {
            throw ServerError.badRequest("a key change names a client and a time after 1970")
        }
        let leaf = PendingKeyLogLeaf(
            entry: try KeyLogEntry(
                keysOf: id,
                change.entryKeys,
                registration: false,
                time: UInt64(change.time.microseconds)
            ),
            signatures: change.signatures
        )
        do {
            return try await database.transaction { [engine] session in
                try await Self.commit(
                    change,
                    leaf,
                    keys: (oldKey, newKey, oldSigning, newSigning),
                    in: session,
                    engine: engine
                )
            }
        } catch let refusal as KeyChangeRefusal {
            return refusal.outcome  // rolled back: nothing of the change stays
        }
    }

    /// A change refused inside its transaction, thrown so the transaction rolls back.
    private struct KeyChangeRefusal: Error { var outcome: KeyChange.Outcome }

    private static func commit(
        _ change: KeyChange,
        _ leaf: PendingKeyLogLeaf,
        keys: (old: String, new: String, oldSigning: String, newSigning: String),
        in session: any SQLDatabase,
        engine: Engine
    ) async throws -> KeyChange.Outcome {
        let client = change.clientID
        let newest = try await session.raw(
            "SELECT MAX(idx) AS idx FROM keylog WHERE client_id = \(bind: client) AND kind IN (1, 2)"
        ).first()?.decode(column: "idx", as: Int64?.self)
        guard newest == Int64(change.previousLeaf) else { throw KeyChangeRefusal(outcome: .keysMoved) }
        // Exactly the held set, each at its type's current generation (locked against a rotation meanwhile).
        let held = try await session.raw(
            """
            SELECT writer_id, user_id, type FROM access_keys WHERE reader_id = \(bind: client)
            LIMIT \(bind: change.rewrapped.count + 1)
            """
        ).all().map { row in
            [
                try row.decode(column: "writer_id", as: String.self),
                try row.decode(column: "user_id", as: String.self),
                try row.decode(column: "type", as: String.self),
            ]
        }
        let named = change.rewrapped.map { [$0.writerID, $0.userID, $0.type] }
        guard Set(held) == Set(named), held.count == named.count else {
            throw KeyChangeRefusal(outcome: .heldKeysDiffer)
        }
        for key in change.rewrapped.sorted(by: {
            [$0.writerID, $0.userID, $0.type].lexicographicallyPrecedes([$1.writerID, $1.userID, $1.type])
        }) {
            let scope = AccessKeyScope(writerID: key.writerID, userID: key.userID, type: key.type)
            let generation = try await lockedGeneration(of: scope, in: session, engine: engine, exclusive: false)
            guard generation == key.generation else { throw KeyChangeRefusal(outcome: .heldKeysDiffer) }
        }
        // Compare and swap: the keys replaced must still be current, whatever another instance did meanwhile.
        let swapped = try await session.raw(
            """
            UPDATE clients SET public_key = \(bind: keys.new), signing_key = \(bind: keys.newSigning),
            api_secret_hash = COALESCE(\(bind: change.apiSecretHash), api_secret_hash),
            keys_changed = \(bind: change.time.microseconds)
            WHERE client_id = \(bind: client) AND public_key = \(bind: keys.old)
            AND signing_key = \(bind: keys.oldSigning) RETURNING client_id
            """
        ).first()
        guard swapped != nil else { throw KeyChangeRefusal(outcome: .keysMoved) }
        // Every EAK this client sealed keeps opening under the key that sealed it.
        try await session.raw(
            """
            UPDATE access_keys SET authorizer_key = \(bind: keys.old)
            WHERE authorizer_id = \(bind: client) AND authorizer_key IS NULL
            """
        ).run()
        for key in change.rewrapped {
            try await session.raw(
                """
                UPDATE access_keys SET eak = \(bind: key.eak), hybrid_eak = \(bind: key.hybridEAK),
                authorizer_id = \(bind: client),
                authorizer_key = NULL WHERE writer_id = \(bind: key.writerID) AND user_id = \(bind: key.userID)
                AND reader_id = \(bind: client) AND type = \(bind: key.type)
                """
            ).run()
        }
        guard let index = try await appendKeyLog([leaf], in: session, engine: engine) else {
            throw ServerError.storage("the key change leaf was not appended")
        }
        return .changed(leaf: index)
    }
}

/// Post-quantum keys (docs/design/PostQuantum.md): a client's X-Wing public key and the key log leaf that records it.
extension SQLServerStore {
    package func publishHybridKey(clientID: String, key: String, leaf: PendingKeyLogLeaf) async throws -> UInt64 {
        try await database.transaction { [engine] session in
            try await session.raw(
                "UPDATE clients SET hybrid_key = \(bind: key) WHERE client_id = \(bind: clientID)"
            ).run()
            guard let index = try await Self.appendKeyLog([leaf], in: session, engine: engine) else {
                throw ServerError.storage("the hybrid key leaf was not appended")
            }
            return index
        }
    }

    package func newestHybridKeyLeaf(clientID: String) async throws -> StoredKeyLogLeaf? {
        try await database.raw(
            "SELECT * FROM keylog WHERE client_id = \(bind: clientID) AND kind = 8 ORDER BY idx DESC LIMIT 1"
        ).first().map(decodeKeyLogLeaf)
    }
}
