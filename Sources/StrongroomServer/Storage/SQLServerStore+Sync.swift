// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit

extension SQLServerStore {
    // MARK: Replication

    package func missingSyncTags(type: String, tags: [String], readableBy caller: String) async throws -> Set<String> {
        guard !tags.isEmpty else { return [] }
        let list = tags.map { $0 as any Encodable & Sendable }
        let rows = try await database.raw(
            """
            SELECT DISTINCT r.sync_tag FROM records r WHERE r.type = \(bind: type) AND r.pending = \(bind: false)
            AND r.sync_tag IN (\(binds: list)) AND
            """ + Self.readable(by: caller)
        ).all()
        let present = Set(try rows.map { try $0.decode(column: "sync_tag", as: String.self) })
        return Set(tags).subtracting(present)
    }

    package func insertSyncRecords(
        _ records: [(record: StoredRecordText, tag: String)]
    ) async throws -> [(recordID: String, created: Bool)] {
        let rows = try records.map { (try recordRow($0.record), $0.tag) }
        return try await database.transaction { session in
            var outcomes: [(recordID: String, created: Bool)] = []
            for (row, tag) in rows {
                let values = RecordColumn.inserted.map { Self.bindable(row[$0]) } + [tag as any Encodable & Sendable]
                let names = (RecordColumn.inserted.map(\.name) + ["sync_tag"]).joined(separator: ", ")
                let inserted = try await session.raw(
                    """
                    INSERT INTO records (\(unsafeRaw: names)) VALUES (\(binds: values))
                    ON CONFLICT (writer_id, type, sync_tag) WHERE sync_tag IS NOT NULL DO NOTHING
                    RETURNING record_id
                    """
                ).first()
                if let inserted {
                    outcomes.append((try inserted.decode(column: "record_id", as: String.self), true))
                    continue
                }
                let existing = try await session.raw(
                    """
                    SELECT record_id FROM records WHERE writer_id = \(bind: row.writerID)
                    AND type = \(bind: row.type) AND sync_tag = \(bind: tag)
                    """
                ).first()
                guard let existing else { throw ServerError.conflict("a revision record changed while it was stored") }
                outcomes.append((try existing.decode(column: "record_id", as: String.self), false))
            }
            return outcomes
        }
    }

    /// A column value as SQLKit binds it.
    private static func bindable(_ value: RecordValue) -> any Encodable & Sendable {
        switch value {
        case .null: String?.none
        case .integer(let number): number
        case .text(let text): text
        case .boolean(let flag): flag
        }
    }
}
