// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit
import StrongroomCore
package import StrongroomWire

extension SQLServerStore {
    // MARK: Replication

    package func missingSyncTags(type: String, tags: [String], readableBy caller: String) async throws -> Set<String> {
        guard !tags.isEmpty else { return [] }
        let rows = try await database.raw(Self.presentSyncTagsSQL(type: type, tags: tags, readableBy: caller)).all()
        let present = Set(try rows.map { try $0.decode(column: "sync_tag", as: String.self) })
        return Set(tags).subtracting(present)
    }

    /// The statement of ``missingSyncTags(type:tags:readableBy:)``: which of `tags` are present.
    static func presentSyncTagsSQL(type: String, tags: [String], readableBy caller: String) -> SQLQueryString {
        """
        SELECT DISTINCT r.sync_tag FROM records r WHERE r.type = \(bind: type) AND NOT r.pending
        AND r.sync_tag IN (\(binds: tags.map { $0 as any Encodable & Sendable })) AND
        """ + readable(by: caller)
    }

    /// Stores revision records in one transaction, each at most once per writer, type and tag: a record whose tag
    /// is stored already (by an earlier request, or earlier in this batch) is not stored again and answers with the
    /// stored record's ID. A few statements per batch, not one per record: the stored tags are looked up per writer
    /// and type, the new rows inserted many to a statement.
    package func insertSyncRecords(
        _ records: [(record: StoredRecordText, tag: String, document: String)],
        maximumPerWriter: Int,
        maximumPerDocument: Int
    ) async throws -> [(recordID: String, created: Bool)] {
        let rows = try records.map { (try recordRow($0.record), $0.tag) }
        let documents = records.map(\.document)
        return try await database.transaction { [engine] session in
            // Tags already stored, per (writer, type).
            var stored: [String: String] = [:]
            func slot(_ row: RecordRow, _ tag: String) -> String { "\(row.writerID)/\(row.type)/\(tag)" }
            let groups = Dictionary(grouping: rows) { "\($0.0.writerID)/\($0.0.type)" }
            for group in groups.values {
                let (writer, type) = (group[0].0.writerID, group[0].0.type)
                for chunk in group.map(\.1).chunked(into: Self.syncBatchRows * 5) {
                    let found = try await session.raw(
                        """
                        SELECT record_id, sync_tag FROM records WHERE writer_id = \(bind: writer)
                        AND type = \(bind: type) AND sync_tag IN (\(binds: chunk.map { $0 as any Encodable & Sendable }))
                        """
                    ).all()
                    for row in found {
                        let tag = try row.decode(column: "sync_tag", as: String.self)
                        stored["\(writer)/\(type)/\(tag)"] = try row.decode(column: "record_id", as: String.self)
                    }
                }
            }
            // The rest, first of each tag only, many rows to a statement.
            var outcomes: [(recordID: String, created: Bool)?] = Array(repeating: nil, count: rows.count)
            var fresh: [Int] = []
            for (position, (row, tag)) in rows.enumerated() {
                if let recordID = stored[slot(row, tag)] {
                    outcomes[position] = (recordID, false)
                } else {
                    stored[slot(row, tag)] = row.recordID
                    fresh.append(position)
                }
            }
            // Each writer's records of a type, and its revisions of each document, are capped, so no member can
            // make another's pull unbounded. On PostgreSQL, writers of one type's records take turns from here (in
            // one order, so two batches never wait on each other), so two batches cannot both fit the last room.
            let capped = Dictionary(grouping: fresh, by: { "\(rows[$0].0.writerID)/\(rows[$0].0.type)" })
            for (_, positions) in capped.sorted(by: { $0.key < $1.key }) {
                let row = rows[positions[0]].0
                if engine == .postgres {
                    try await session.raw(Self.writerTypeLockSQL(type: row.type, writer: row.writerID)).run()
                }
                let held = try await Self.syncRecordCount(in: session, type: row.type, writer: row.writerID)
                guard held + positions.count <= maximumPerWriter else {
                    throw ServerError(
                        .tooLarge,
                        "a writer keeps at most \(maximumPerWriter) records of one replicated type (\(held) stored)"
                    )
                }
                var perDocument: [String: Int] = [:]
                for position in positions { perDocument[documents[position], default: 0] += 1 }
                for chunk in Array(perDocument.keys).chunked(into: Self.syncBatchRows * 5) {
                    let counted = try await session.raw(
                        Self.syncDocumentCountsSQL(type: row.type, writer: row.writerID, documents: Array(chunk))
                    ).all()
                    for found in counted {
                        perDocument[try found.decode(column: "sync_doc", as: String.self), default: 0] +=
                            try found
                            .decode(column: "held", as: Int.self)
                    }
                }
                if let most = perDocument.values.max(), most > maximumPerDocument {
                    throw ServerError(
                        .tooLarge,
                        "a writer keeps at most \(maximumPerDocument) revision records of one document"
                    )
                }
            }
            let names = (RecordColumn.inserted.map(\.name) + ["sync_tag", "sync_doc"]).joined(separator: ", ")
            for chunk in fresh.chunked(into: Self.syncBatchRows) {
                var values: SQLQueryString = ""
                for (offset, position) in chunk.enumerated() {
                    let (row, tag) = rows[position]
                    let binds =
                        RecordColumn.inserted.map { Self.bindable(row[$0]) }
                        + [tag as any Encodable & Sendable, documents[position]]
                    values += offset == 0 ? "(\(binds: binds))" : ", (\(binds: binds))"
                }
                let inserted = try await session.raw(
                    "INSERT INTO records (\(unsafeRaw: names)) VALUES " + values + """
                         ON CONFLICT (writer_id, type, sync_tag) WHERE sync_tag IS NOT NULL DO NOTHING
                        RETURNING record_id
                        """
                ).all()
                let created = Set(try inserted.map { try $0.decode(column: "record_id", as: String.self) })
                for position in chunk {
                    let (row, tag) = rows[position]
                    if created.contains(row.recordID) {
                        outcomes[position] = (row.recordID, true)
                        continue
                    }
                    // Stored by a concurrent request since the lookup (PostgreSQL): answer with that record.
                    let existing = try await session.raw(
                        """
                        SELECT record_id FROM records WHERE writer_id = \(bind: row.writerID)
                        AND type = \(bind: row.type) AND sync_tag = \(bind: tag)
                        """
                    ).first()
                    guard let existing else {
                        throw ServerError.conflict("a revision record changed while it was stored")
                    }
                    outcomes[position] = (try existing.decode(column: "record_id", as: String.self), false)
                }
            }
            return try outcomes.map { outcome in
                guard let outcome else { throw ServerError.conflict("a revision record was not stored") }
                return outcome
            }
        }
    }

    package func deleteSyncRecords(type: String, tags: [String], writer: String) async throws -> Int {
        guard !tags.isEmpty else { return 0 }
        return try await database.raw(
            """
            DELETE FROM records WHERE writer_id = \(bind: writer) AND type = \(bind: type)
            AND sync_tag IN (\(binds: tags.map { $0 as any Encodable & Sendable })) RETURNING record_id
            """
        ).all().count
    }

    /// How many records of `type` `writer` keeps.
    static func syncRecordCount(in database: any SQLDatabase, type: String, writer: String) async throws -> Int {
        try await database.raw(syncRecordCountSQL(type: type, writer: writer)).first()?
            .decode(column: "held", as: Int.self) ?? 0
    }

    /// The statement of ``syncRecordCount(in:type:writer:)``, through `records_writer_type`.
    static func syncRecordCountSQL(type: String, writer: String) -> SQLQueryString {
        "SELECT count(*) AS held FROM records WHERE writer_id = \(bind: writer) AND type = \(bind: type)"
    }

    /// How many revision records of each of `documents` (document tags) `writer` keeps of `type`, through
    /// `records_sync_doc`: rows `sync_doc`, `held` (none for a document it keeps none of).
    static func syncDocumentCountsSQL(type: String, writer: String, documents: [String]) -> SQLQueryString {
        """
        SELECT sync_doc, count(*) AS held FROM records WHERE writer_id = \(bind: writer) AND type = \(bind: type)
        AND sync_doc IN (\(binds: documents.map { $0 as any Encodable & Sendable })) GROUP BY sync_doc
        """
    }

    /// Rows per multi-row insert (15 values each; SQLite takes 32,766 bound values, PostgreSQL 65,535).
    static let syncBatchRows = 100

    /// A column value as SQLKit binds it.
    static func bindable(_ value: RecordValue) -> any Encodable & Sendable {
        switch value {
        case .null: String?.none
        case .integer(let number): number
        case .text(let text): text
        case .boolean(let flag): flag
        }
    }
}

extension SQLServerStore {
    // MARK: Shared datastores' access

    package func syncMembership(type: String, caller: String) async throws -> SyncMembership {
        let rows = try await database.raw(
            """
            SELECT client_id, access FROM sync_access WHERE type = \(bind: type)
            AND (access = 'owner' OR client_id = \(bind: caller))
            """
        ).all()
        guard !rows.isEmpty else { return .unowned }
        var mine: String?
        for row in rows where try row.decode(column: "client_id", as: String.self) == caller {
            mine = try row.decode(column: "access", as: String.self)
        }
        guard let mine else { return .stranger }
        if mine == Self.ownerAccess { return .owner }
        return SyncAccess(rawValue: mine).map(SyncMembership.member) ?? .stranger
    }

    /// The `sync_access.access` of a type's owner (members' rows hold a ``SyncAccess``).
    static let ownerAccess = "owner"

    /// Whether `claimant` is `type`'s writer and so may own it: the type's first record (if it has any) is its, and no
    /// other writer has shared the type with it. So a member, who sees the type only once its owner shared it, can
    /// never become its owner, whoever calls first (`records_type`, `policies_reader`).
    static func mayClaim(type: String, claimant: String, in session: any SQLDatabase) async throws -> Bool {
        let first = try await session.raw(
            "SELECT writer_id FROM records WHERE type = \(bind: type) ORDER BY idx LIMIT 1"
        ).first()?.decode(column: "writer_id", as: String.self)
        let sharedWith = try await session.raw(
            """
            SELECT 1 AS yes FROM policies WHERE reader_id = \(bind: claimant) AND type = \(bind: type)
            AND writer_id <> \(bind: claimant) LIMIT 1
            """
        ).first()
        return (first == nil || first == claimant) && sharedWith == nil
    }

    package func setSyncAccess(
        _ access: SyncAccess,
        of member: String,
        type: String,
        by caller: String,
        maximumMembers: Int,
        maximumOwnedTypes: Int
    ) async throws -> SyncAccessChange {
        try await database.transaction { session in
            let owners = try await session.raw(
                "SELECT client_id FROM sync_access WHERE type = \(bind: type) AND access = \(bind: Self.ownerAccess)"
            ).all()
            if let row = owners.first {
                guard try row.decode(column: "client_id", as: String.self) == caller else { return .ownedByAnother }
            } else {
                guard try await Self.mayClaim(type: type, claimant: caller, in: session) else { return .notItsWriter }
                let owned =
                    try await session.raw(
                        """
                        SELECT count(*) AS n FROM sync_access WHERE client_id = \(bind: caller)
                        AND access = \(bind: Self.ownerAccess)
                        """
                    ).first()?.decode(column: "n", as: Int.self) ?? 0
                guard owned < maximumOwnedTypes else { return .tooManyOwnedTypes }
                try await session.raw(
                    """
                    INSERT INTO sync_access (type, client_id, access)
                    VALUES (\(bind: type), \(bind: caller), \(bind: Self.ownerAccess))
                    """
                ).run()
            }
            let members =
                try await session.raw(
                    "SELECT count(*) AS n FROM sync_access WHERE type = \(bind: type) AND client_id <> \(bind: member)"
                ).first()?.decode(column: "n", as: Int.self) ?? 0
            guard members <= maximumMembers else { return .tooManyMembers }
            try await session.raw(
                """
                INSERT INTO sync_access (type, client_id, access) VALUES (\(bind: type), \(bind: member), \(bind: access.rawValue))
                ON CONFLICT (type, client_id) DO UPDATE SET access = \(bind: access.rawValue)
                """
            ).run()
            return .set
        }
    }
}
