// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit
import StrongroomCore

/// What one look of many long-polls at one type from one index found (``SyncStore/changeWindows(type:after:window:callers:)``).
package struct ChangeWindows: Sendable {
    /// A record in the window: its index, writer, user and plain meta.
    package struct Entry: Sendable {
        package var index: Int64
        package var writer: String
        package var user: String
        package var plain: [String: String]
    }

    /// A policy letting `reader` read `writer`'s records of the type about `user`.
    package struct Grant: Sendable, Hashable {
        package var reader: String
        package var writer: String
        package var user: String
    }

    /// The callers that may read any record of the type at all (they write it, or a writer shared it with them).
    package var mayRead: Set<String> = []
    /// The highest index examined (nil when there was none, or no caller may read anything).
    package var last: Int64?
    /// How many records were examined.
    package var examined = 0
    /// The committed records examined, in index order.
    package var entries: [Entry] = []
    /// The read grants of the callers on the writers of ``entries``.
    package var grants: Set<Grant> = []

    /// The first record `caller` may read (E3DB's rule: its writer, its user, or a writer's policy), a replica's
    /// checkpoint record not counted; nil when there is none.
    package func firstReadable(by caller: String, checkpointKey: String) -> Int64? {
        guard mayRead.contains(caller) else { return nil }
        return entries.first { entry in
            entry.plain[checkpointKey] == nil
                && (entry.writer == caller || entry.user == caller
                    || grants.contains(Grant(reader: caller, writer: entry.writer, user: entry.user)))
        }?.index
    }
}

extension SQLServerStore {
    /// The most callers one statement names.
    static let changeWindowCallers = 1_000
    /// The most grant rows one statement may return (callers times writers), so a batch is asked in parts.
    static let changeWindowGrantRows = 100_000

    package func changeWindows(
        type: String,
        after: Int64,
        window: Int,
        callers: Set<String>
    ) async throws -> ChangeWindows {
        var found = ChangeWindows()
        let callers = Array(callers)
        for chunk in callers.chunked(into: Self.changeWindowCallers) {
            for row in try await database.raw(Self.mayReadSQL(type: type, callers: Array(chunk))).all() {
                found.mayRead.insert(try row.decode(column: "who", as: String.self))
            }
        }
        guard !found.mayRead.isEmpty else { return found }
        let bounds = try await database.raw(
            """
            SELECT MAX(w.idx) AS last, COUNT(*) AS examined FROM (SELECT idx FROM records
            WHERE type = \(bind: type) AND idx > \(bind: after) ORDER BY idx LIMIT \(bind: window)) w
            """
        ).first()
        guard let bounds, let last = try bounds.decode(column: "last", as: Int64?.self) else { return found }
        found.last = last
        found.examined = try bounds.decode(column: "examined", as: Int.self)
        found.entries = try await database.raw(
            """
            SELECT r.idx, r.writer_id, r.user_id, r.plain FROM records r WHERE r.type = \(bind: type)
            AND r.idx > \(bind: after) AND r.idx <= \(bind: last) AND NOT r.pending ORDER BY r.idx
            """
        ).all().map { row in
            ChangeWindows.Entry(
                index: try row.decode(column: "idx", as: Int64.self),
                writer: try row.decode(column: "writer_id", as: String.self),
                user: try row.decode(column: "user_id", as: String.self),
                plain: try decodeStringMap(try row.decode(column: "plain", as: String.self))
            )
        }
        // Grants matter only for records the reader neither wrote nor is the user of.
        let writers = Array(Set(found.entries.map(\.writer)))
        let readers = Array(found.mayRead)
        guard !writers.isEmpty else { return found }
        let readersPerStatement = max(1, min(Self.changeWindowCallers, Self.changeWindowGrantRows / writers.count))
        for writerChunk in writers.chunked(into: Self.changeWindowCallers) {
            for readerChunk in readers.chunked(into: readersPerStatement) {
                let rows = try await database.raw(
                    """
                    SELECT reader_id, writer_id, user_id FROM policies WHERE type = \(bind: type)
                    AND can_read = \(bind: true)
                    AND reader_id IN (\(binds: readerChunk.map { $0 as any Encodable & Sendable }))
                    AND writer_id IN (\(binds: writerChunk.map { $0 as any Encodable & Sendable }))
                    """
                ).all()
                for row in rows {
                    found.grants.insert(
                        ChangeWindows.Grant(
                            reader: try row.decode(column: "reader_id", as: String.self),
                            writer: try row.decode(column: "writer_id", as: String.self),
                            user: try row.decode(column: "user_id", as: String.self)
                        )
                    )
                }
            }
        }
        return found
    }

    /// Of `callers`, those that may read any record of `type` — each writes the type, or a writer shared the type
    /// with it — in one statement: two index lookups per caller (`records_writer_type`, then `policies_reader`).
    static func mayReadSQL(type: String, callers: [String]) -> SQLQueryString {
        var values = SQLQueryString("")
        for (position, caller) in callers.enumerated() {
            values.appendInterpolation(unsafeRaw: position == 0 ? "(" : ", (")
            values.appendInterpolation(bind: caller)
            values.appendInterpolation(unsafeRaw: ")")
        }
        return """
            SELECT v.column1 AS who FROM (VALUES \(values)) AS v WHERE EXISTS (SELECT 1 FROM records
            WHERE writer_id = v.column1 AND type = \(bind: type)) OR EXISTS (SELECT 1 FROM policies
            WHERE reader_id = v.column1 AND type = \(bind: type) AND can_read = \(bind: true))
            """
    }
}
