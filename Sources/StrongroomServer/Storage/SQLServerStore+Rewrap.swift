// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit
package import StrongroomWire

/// The bulk re-wrap of a rotation (docs/design/Revocation.md, "The bulk re-wrap").
extension SQLServerStore {
    package func rewrapRecords(
        _ rewraps: [RecordRewrap],
        of scope: AccessKeyScope,
        at time: Timestamp
    ) async throws -> [RecordRewrap.Outcome] {
        guard !rewraps.isEmpty else { return [] }
        return try await database.transaction { session in
            let ids = rewraps.map { $0.recordID as any Encodable & Sendable }
            var stored: [String: (version: String, data: String)] = [:]
            for row in try await session.raw(
                """
                SELECT record_id, version, data FROM records WHERE record_id IN (\(binds: ids))
                AND writer_id = \(bind: scope.writerID) AND user_id = \(bind: scope.userID)
                AND type = \(bind: scope.type) AND NOT pending
                """
            ).all() {
                stored[try row.decode(column: "record_id", as: String.self)] = (
                    try row.decode(column: "version", as: String.self),
                    try row.decode(column: "data", as: String.self)
                )
            }
            var outcomes: [RecordRewrap.Outcome] = []
            outcomes.reserveCapacity(rewraps.count)
            for rewrap in rewraps {
                guard let current = stored[rewrap.recordID] else {
                    outcomes.append(.notFound)
                    continue
                }
                guard current.version == rewrap.version else {
                    outcomes.append(.conflict)
                    continue
                }
                guard RecordRewrap.onlyWrapsDiffer(rewrap.data, from: try decodeStringMap(current.data)) else {
                    return rewraps.map { _ in RecordRewrap.Outcome.changed }  // nothing stored
                }
                outcomes.append(.rewrapped)
            }
            // One statement for the page: each row still at its version (on PostgreSQL another transaction may
            // have changed it since the read) takes its new data and version.
            let chosen = rewraps.indices.filter { outcomes[$0] == .rewrapped }
            guard !chosen.isEmpty else { return outcomes }
            var rows: [SQLQueryString] = []
            rows.reserveCapacity(chosen.count)
            for index in chosen {
                let rewrap = rewraps[index]
                rows.append(
                    """
                    (\(bind: rewrap.recordID), \(bind: rewrap.version), \(bind: encodeStringMap(rewrap.data)),
                    \(bind: rewrap.newVersion))
                    """
                )
            }
            let updated = Set(
                try await session.raw(
                    """
                    WITH page (id, old, data, version) AS (VALUES \(rows.joined(separator: ", ")))
                    UPDATE records SET data = page.data, version = page.version,
                    last_modified = \(bind: time.microseconds)
                    FROM page WHERE records.record_id = page.id AND records.version = page.old
                    RETURNING records.record_id
                    """
                ).all().map { try $0.decode(column: "record_id", as: String.self) }
            )
            for index in chosen where !updated.contains(rewraps[index].recordID) { outcomes[index] = .conflict }
            return outcomes
        }
    }
}

extension SQLServerStore {
    package func rewrapListing(
        of scope: AccessKeyScope,
        after index: Int64,
        limit: Int,
        bytes: Int
    ) async throws -> [RewrapListing.Entry] {
        let rows = try await database.raw(
            """
            SELECT idx, record_id, version, data, file_meta IS NOT NULL AS is_file FROM records
            WHERE writer_id = \(bind: scope.writerID) AND idx > \(bind: index) AND user_id = \(bind: scope.userID)
            AND type = \(bind: scope.type) AND NOT pending ORDER BY idx LIMIT \(bind: limit)
            """
        ).all()
        var entries: [RewrapListing.Entry] = []
        entries.reserveCapacity(rows.count)
        var total = 0
        for row in rows {
            let data = try row.decode(column: "data", as: String.self)
            total += data.utf8.count
            if !entries.isEmpty && total > bytes { break }
            entries.append(
                RewrapListing.Entry(
                    index: try row.decode(column: "idx", as: Int64.self),
                    recordID: try row.decode(column: "record_id", as: String.self),
                    version: try row.decode(column: "version", as: String.self),
                    dataJSON: data,
                    isFile: try row.decode(column: "is_file", as: Bool.self)
                )
            )
        }
        return entries
    }
}
