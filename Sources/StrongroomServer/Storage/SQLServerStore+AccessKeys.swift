// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCrypto
package import StrongroomWire

/// Encrypted access keys, one per (writer, user, reader, type) slot.
extension SQLServerStore {
    // MARK: Access keys

    package func accessKey(in slot: AccessKeySlot) async throws -> StoredAccessKey? {
        try await database.raw(
            """
            SELECT * FROM access_keys WHERE writer_id = \(bind: slot.writerID) AND user_id = \(bind: slot.userID)
            AND reader_id = \(bind: slot.readerID) AND type = \(bind: slot.type)
            """
        ).first().map(decodeAccessKey)
    }

    /// An `access_keys` row.
    func decodeAccessKey(_ row: any SQLRow) throws -> StoredAccessKey {
        StoredAccessKey(
            writerID: try row.decode(column: "writer_id", as: String.self),
            userID: try row.decode(column: "user_id", as: String.self),
            readerID: try row.decode(column: "reader_id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            eak: try row.decode(column: "eak", as: String.self),
            hybridEAK: try row.decode(column: "hybrid_eak", as: String?.self),
            authorizerID: try row.decode(column: "authorizer_id", as: String.self),
            authorizerKey: try row.decode(column: "authorizer_key", as: String?.self).map {
                try decodeJSON(PublicKeyObject.self, $0)
            }
        )
    }

    package func insertAccessKey(_ key: StoredAccessKey) async throws -> Bool {
        try await database.raw(
            """
            INSERT INTO access_keys (writer_id, user_id, reader_id, type, eak, hybrid_eak, authorizer_id)
            VALUES (\(bind: key.writerID), \(bind: key.userID), \(bind: key.readerID), \(bind: key.type),
            \(bind: key.eak), \(bind: key.hybridEAK), \(bind: key.authorizerID))
            ON CONFLICT (writer_id, user_id, reader_id, type) DO NOTHING RETURNING eak
            """
        ).first() != nil
    }

    package func replaceAccessKey(_ key: StoredAccessKey, logAt time: Timestamp, fence: Int?) async throws -> Int? {
        let slot = AccessKeySlot(writerID: key.writerID, userID: key.userID, readerID: key.readerID, type: key.type)
        let grant = try PendingKeyLogLeaf.access(.accessGranted, slot, time: time)
        return try await database.transaction { [engine] session in
            if let fence {
                let scope = AccessKeyScope(writerID: key.writerID, userID: key.userID, type: key.type)
                let current = try await Self.lockedGeneration(of: scope, in: session, engine: engine, exclusive: false)
                guard current == fence else { return current }
            }
            let previous = try await session.raw(
                """
                SELECT eak, hybrid_eak FROM access_keys WHERE writer_id = \(bind: key.writerID)
                AND user_id = \(bind: key.userID) AND reader_id = \(bind: key.readerID) AND type = \(bind: key.type)
                """
            ).first().map { row in
                (try row.decode(column: "eak", as: String.self), try row.decode(column: "hybrid_eak", as: String?.self))
            }
            try await session.raw(
                """
                INSERT INTO access_keys (writer_id, user_id, reader_id, type, eak, hybrid_eak, authorizer_id)
                VALUES (\(bind: key.writerID), \(bind: key.userID), \(bind: key.readerID), \(bind: key.type),
                \(bind: key.eak), \(bind: key.hybridEAK), \(bind: key.authorizerID))
                ON CONFLICT (writer_id, user_id, reader_id, type) DO UPDATE
                SET eak = excluded.eak, hybrid_eak = excluded.hybrid_eak, authorizer_id = excluded.authorizer_id,
                authorizer_key = NULL
                """
            ).run()
            if previous?.0 != key.eak || previous?.1 != key.hybridEAK, key.readerID != key.writerID {
                try await Self.appendKeyLog([grant], in: session, engine: engine)
            }
            return nil
        }
    }

    package func deleteAccessKey(in slot: AccessKeySlot, logAt time: Timestamp) async throws {
        let revocation = try PendingKeyLogLeaf.access(.accessRevoked, slot, time: time)
        try await database.transaction { [engine] session in
            let deleted = try await session.raw(
                """
                DELETE FROM access_keys WHERE writer_id = \(bind: slot.writerID) AND user_id = \(bind: slot.userID)
                AND reader_id = \(bind: slot.readerID) AND type = \(bind: slot.type) RETURNING eak
                """
            ).first()
            if deleted != nil, slot.readerID != slot.writerID {
                try await Self.appendKeyLog([revocation], in: session, engine: engine)
            }
        }
    }
}

/// Access-key generations and the rotation that makes one (docs/design/Revocation.md).
extension SQLServerStore {
    package func accessKeyGeneration(
        of scope: AccessKeyScope,
        limit: Int
    ) async throws
        -> (generation: Int, readers: [String])
    {
        let generation = try await Self.generation(of: scope, in: database)
        let readers = try await Self.readers(of: scope, limit: limit, in: database)
        return (generation, readers)
    }

    package func rotateAccessKey(
        _ rotation: AccessKeyRotation,
        logAt time: Timestamp
    ) async throws
        -> AccessKeyRotation.Outcome
    {
        let scope = rotation.scope
        let revocations = try rotation.revoke.sorted().map {
            try PendingKeyLogLeaf.access(.accessRevoked, scope.slot(reader: $0), time: time)
        }
        let generationLeaf = try rotation.logLeaf.map { try PendingKeyLogLeaf.rotation($0, of: scope, time: time) }
        return try await database.transaction { [engine] session in
            // The generation row first, locked (PostgreSQL) or under the write lock (SQLite's BEGIN IMMEDIATE), so
            // two rotations of one type cannot both pass the checks below, nor a fenced share slip between them.
            let current = try await Self.lockedGeneration(of: scope, in: session, engine: engine, exclusive: true)
            guard rotation.generation == current + 1 else { return .staleGeneration(current: current) }
            // More holders than the rotation names (plus one) cannot match: the read stays bounded.
            let bound = rotation.eaks.count + rotation.revoke.count + 1
            let holders = Set(try await Self.readers(of: scope, limit: bound, in: session))
            guard Set(rotation.eaks.keys) == holders.subtracting(rotation.revoke) else { return .readersDiffer }
            for (reader, eak) in rotation.eaks.sorted(by: { $0.key < $1.key }) {
                try await session.raw(
                    """
                    UPDATE access_keys SET eak = \(bind: eak), hybrid_eak = \(bind: rotation.hybridEAKs[reader]),
                    authorizer_id = \(bind: rotation.authorizerID), authorizer_key = NULL
                    WHERE writer_id = \(bind: scope.writerID) AND user_id = \(bind: scope.userID)
                    AND reader_id = \(bind: reader) AND type = \(bind: scope.type)
                    """
                ).run()
            }
            var logged: [PendingKeyLogLeaf] = []
            for (reader, leaf) in zip(rotation.revoke.sorted(), revocations) {
                let deleted = try await session.raw(
                    """
                    DELETE FROM access_keys WHERE writer_id = \(bind: scope.writerID)
                    AND user_id = \(bind: scope.userID) AND reader_id = \(bind: reader)
                    AND type = \(bind: scope.type) RETURNING eak
                    """
                ).first()
                if deleted != nil, reader != scope.writerID { logged.append(leaf) }
                // Its reads denied as `PUT /policy` with `deny: read` would (an authorizer flag is left as it is).
                try await session.raw(
                    """
                    INSERT INTO policies (user_id, writer_id, reader_id, type, can_read, is_authorizer)
                    VALUES (\(bind: scope.userID), \(bind: scope.writerID), \(bind: reader), \(bind: scope.type),
                    \(bind: false), \(bind: false))
                    ON CONFLICT (user_id, writer_id, reader_id, type) DO UPDATE SET can_read = excluded.can_read,
                    read_granted_by = NULL
                    """
                ).run()
            }
            if let previous = rotation.previous {
                try await session.raw(
                    """
                    INSERT INTO access_key_links (writer_id, user_id, type, generation, previous)
                    VALUES (\(bind: scope.writerID), \(bind: scope.userID), \(bind: scope.type),
                    \(bind: rotation.generation), \(bind: previous))
                    ON CONFLICT (writer_id, user_id, type, generation) DO UPDATE SET previous = excluded.previous
                    """
                ).run()
            }
            try await session.raw(
                """
                UPDATE access_key_generations SET generation = \(bind: rotation.generation)
                WHERE writer_id = \(bind: scope.writerID) AND user_id = \(bind: scope.userID)
                AND type = \(bind: scope.type)
                """
            ).run()
            if let generationLeaf { logged.append(generationLeaf) }
            if !logged.isEmpty { try await Self.appendKeyLog(logged, in: session, engine: engine) }
            return .rotated
        }
    }

    package func accessKeyLinks(of scope: AccessKeyScope, below: Int?, limit: Int) async throws -> [AccessKeyLink] {
        let bound = min(max(0, limit), Int(Int32.max))
        let ceiling = min(max(0, below ?? Int(Int32.max) + 1), Int(Int32.max) + 1)
        return try await database.raw(
            """
            SELECT generation, previous FROM access_key_links WHERE writer_id = \(bind: scope.writerID)
            AND user_id = \(bind: scope.userID) AND type = \(bind: scope.type) AND generation < \(bind: ceiling)
            ORDER BY generation DESC LIMIT \(bind: bound)
            """
        ).all().map {
            AccessKeyLink(
                generation: try $0.decode(column: "generation", as: Int.self),
                previous: try $0.decode(column: "previous", as: String.self)
            )
        }
    }

    package func holdsAccessKey(of scope: AccessKeyScope, reader: String) async throws -> Bool {
        try await database.raw(
            """
            SELECT 1 AS held FROM access_keys WHERE writer_id = \(bind: scope.writerID)
            AND user_id = \(bind: scope.userID) AND reader_id = \(bind: reader) AND type = \(bind: scope.type)
            """
        ).first() != nil
    }

    package func currentKeyGeneration(of scope: AccessKeyScope) async throws -> Int {
        try await Self.generation(of: scope, in: database)
    }

    /// The stored generation of `scope` (1 without a row).
    private static func generation(of scope: AccessKeyScope, in database: any SQLDatabase) async throws -> Int {
        try await database.raw(
            """
            SELECT generation FROM access_key_generations WHERE writer_id = \(bind: scope.writerID)
            AND user_id = \(bind: scope.userID) AND type = \(bind: scope.type)
            """
        ).first()?.decode(column: "generation", as: Int.self) ?? 1
    }

    /// The generation of `scope` inside a transaction, its row made (at 1) when missing and locked until the
    /// transaction ends: on PostgreSQL `FOR UPDATE` (`exclusive`: a rotation) or `FOR SHARE` (a fenced share, which
    /// several may hold at once); SQLite's transactions hold the database's write lock already.
    static func lockedGeneration(
        of scope: AccessKeyScope,
        in session: any SQLDatabase,
        engine: Engine,
        exclusive: Bool
    ) async throws
        -> Int
    {
        try await session.raw(
            """
            INSERT INTO access_key_generations (writer_id, user_id, type, generation)
            VALUES (\(bind: scope.writerID), \(bind: scope.userID), \(bind: scope.type), 1)
            ON CONFLICT (writer_id, user_id, type) DO NOTHING
            """
        ).run()
        let lock = engine == .postgres ? (exclusive ? " FOR UPDATE" : " FOR SHARE") : ""
        return try await session.raw(
            """
            SELECT generation FROM access_key_generations WHERE writer_id = \(bind: scope.writerID)
            AND user_id = \(bind: scope.userID) AND type = \(bind: scope.type)\(unsafeRaw: lock)
            """
        ).first()?.decode(column: "generation", as: Int.self) ?? 1
    }

    /// Up to `limit` readers holding an EAK of `scope`, sorted.
    private static func readers(
        of scope: AccessKeyScope,
        limit: Int,
        in database: any SQLDatabase
    ) async throws
        -> [String]
    {
        let bound = min(limit, Int(Int32.max))
        return try await database.raw(
            """
            SELECT reader_id FROM access_keys WHERE writer_id = \(bind: scope.writerID)
            AND user_id = \(bind: scope.userID) AND type = \(bind: scope.type) ORDER BY reader_id LIMIT \(bind: bound)
            """
        ).all().map { try $0.decode(column: "reader_id", as: String.self) }
    }
}
