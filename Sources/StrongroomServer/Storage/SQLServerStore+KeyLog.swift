// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCrypto
import StrongroomWire

/// The key log's leaves (`keylog`): appended in the transaction of the change they record, with indexes dense from
/// 0. On SQLite the transaction's write lock orders the appends; on PostgreSQL an advisory lock does, so several
/// instances on one database keep one log.
extension SQLServerStore {
    /// The advisory lock every PostgreSQL append holds until its transaction ends.
    static let keyLogLock = 7_470_617

    /// Appends `leaves` in order, in `session`'s transaction; returns the first one's index.
    @discardableResult
    static func appendKeyLog(
        _ leaves: [PendingKeyLogLeaf],
        in session: any SQLDatabase,
        engine: Engine
    ) async throws
        -> UInt64?
    {
        guard !leaves.isEmpty else { return nil }
        if engine == .postgres { try await session.raw("SELECT pg_advisory_xact_lock(\(bind: keyLogLock))").run() }
        let next =
            try await session.raw("SELECT COALESCE(MAX(idx) + 1, 0) AS next FROM keylog").first()?
            .decode(column: "next", as: Int64.self) ?? 0
        guard next >= 0, next <= Int64.max - Int64(leaves.count) else {
            throw ServerError.storage("the key log's index is out of range")
        }
        for (offset, leaf) in leaves.enumerated() {
            try await session.raw(
                """
                INSERT INTO keylog (idx, entry, client_id, kind, salt, party, user_id, type, signatures)
                VALUES (\(bind: next + Int64(offset)), \(bind: Data(leaf.entry.encoded)),
                \(bind: leaf.clientID), \(bind: Int(leaf.entry.kind.rawValue)),
                \(bind: leaf.salt.map { Data($0) }), \(bind: leaf.party), \(bind: leaf.userID), \(bind: leaf.type),
                \(bind: leaf.signatures.map { Data($0) }))
                """
            ).run()
        }
        return UInt64(next)
    }

    @discardableResult
    package func appendKeyLog(_ leaves: [PendingKeyLogLeaf]) async throws -> UInt64? {
        try await database.transaction { [engine] session in
            try await Self.appendKeyLog(leaves, in: session, engine: engine)
        }
    }

    package func keyLogSize() async throws -> UInt64 {
        let size =
            try await database.raw("SELECT COALESCE(MAX(idx) + 1, 0) AS size FROM keylog").first()?
            .decode(column: "size", as: Int64.self) ?? 0
        guard size >= 0 else { throw ServerError.storage("the key log's size is out of range") }
        return UInt64(size)
    }

    package func keyLogLeaves(from index: UInt64, limit: Int) async throws -> [StoredKeyLogLeaf] {
        guard index <= UInt64(Int64.max), limit > 0 else { return [] }
        return try await database.raw(
            "SELECT * FROM keylog WHERE idx >= \(bind: Int64(index)) ORDER BY idx LIMIT \(bind: limit)"
        ).all().map(decodeKeyLogLeaf)
    }

    package func keyLeaves(clientID: String, limit: Int) async throws -> [StoredKeyLogLeaf] {
        try await database.raw(
            """
            SELECT * FROM keylog WHERE client_id = \(bind: clientID) AND kind IN (1, 2) ORDER BY idx
            LIMIT \(bind: limit)
            """
        ).all().map(decodeKeyLogLeaf)
    }

    package func newestKeyLeaf(clientID: String) async throws -> StoredKeyLogLeaf? {
        try await database.raw(
            """
            SELECT * FROM keylog WHERE client_id = \(bind: clientID) AND kind IN (1, 2) ORDER BY idx DESC LIMIT 1
            """
        ).first().map(decodeKeyLogLeaf)
    }

    package func commitmentLeaves(
        party: String,
        after index: UInt64?,
        limit: Int
    ) async throws
        -> [StoredKeyLogLeaf]
    {
        let after = index.map { Int64(clamping: $0) } ?? -1
        return try await database.raw(
            """
            SELECT * FROM keylog WHERE idx > \(bind: after) AND (party = \(bind: party)
            OR (client_id = \(bind: party) AND kind BETWEEN 3 AND 6)) ORDER BY idx LIMIT \(bind: limit)
            """
        ).all().map(decodeKeyLogLeaf)
    }

    package func generationLeaves(
        of scope: AccessKeyScope,
        for caller: String,
        limit: Int
    ) async throws
        -> [StoredKeyLogLeaf]?
    {
        if caller != scope.writerID, !(try await holdsAccessKey(of: scope, reader: caller)) { return nil }
        return try await database.raw(
            """
            SELECT * FROM keylog WHERE client_id = \(bind: scope.writerID) AND kind = 7
            AND user_id = \(bind: scope.userID) AND type = \(bind: scope.type) ORDER BY idx DESC
            LIMIT \(bind: max(0, limit))
            """
        ).all().map(decodeKeyLogLeaf)
    }

    package func backfillKeyLog(
        after cursor: KeyLogBackfillCursor?,
        batch: Int
    ) async throws
        -> KeyLogBackfillCursor?
    {
        try await database.transaction { [engine] session in
            if engine == .postgres {
                try await session.raw("SELECT pg_advisory_xact_lock(\(bind: Self.keyLogLock))").run()
            }
            let after = cursor ?? KeyLogBackfillCursor(created: .min, clientID: "")
            let rows = try await session.raw(
                """
                SELECT * FROM clients c WHERE (c.created > \(bind: after.created) OR (c.created = \(bind: after.created)
                AND c.client_id > \(bind: after.clientID))) AND NOT EXISTS (SELECT 1 FROM keylog k
                WHERE k.client_id = c.client_id AND k.kind IN (1, 2)) ORDER BY c.created, c.client_id
                LIMIT \(bind: batch)
                """
            ).all()
            let clients = try rows.map(decodeClient)
            guard let last = clients.last else { return nil }
            let leaves = clients.compactMap { PendingKeyLogLeaf(registering: $0) }
            try await Self.appendKeyLog(leaves, in: session, engine: engine)
            return KeyLogBackfillCursor(created: last.created.microseconds, clientID: last.clientID)
        }
    }

    func decodeKeyLogLeaf(_ row: any SQLRow) throws -> StoredKeyLogLeaf {
        let index = try row.decode(column: "idx", as: Int64.self)
        let kind = try row.decode(column: "kind", as: Int.self)
        guard index >= 0, (0...255).contains(kind) else { throw ServerError.storage("a key log row is out of range") }
        return StoredKeyLogLeaf(
            index: UInt64(index),
            entry: [UInt8](try row.decode(column: "entry", as: Data.self)),
            clientID: try row.decode(column: "client_id", as: String.self),
            kind: UInt8(kind),
            salt: try row.decode(column: "salt", as: Data?.self).map { [UInt8]($0) },
            party: try row.decode(column: "party", as: String?.self),
            userID: try row.decode(column: "user_id", as: String?.self),
            type: try row.decode(column: "type", as: String?.self),
            signatures: try row.decode(column: "signatures", as: Data?.self).map { [UInt8]($0) }
        )
    }
}

/// Where a key log backfill of clients registered before the log stands: the last client it looked at.
package struct KeyLogBackfillCursor: Sendable, Hashable {
    package var created: Int64
    package var clientID: String
}

extension SQLServerStore {
    /// How many clients and key log leaves the database holds: a tool that writes made-up data (the key log's append probe, `StrongroomKeyLogSpeed`)
    /// refuses a database that holds either.
    package func deploymentContents() async throws -> (clients: Int, leaves: Int) {
        let row = try await database.raw(
            "SELECT (SELECT count(*) FROM clients) AS clients, (SELECT count(*) FROM keylog) AS leaves"
        ).first()
        return (
            try row?.decode(column: "clients", as: Int.self) ?? 0,
            try row?.decode(column: "leaves", as: Int.self) ?? 0
        )
    }
}
