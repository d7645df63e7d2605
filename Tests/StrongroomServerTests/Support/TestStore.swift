// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import SQLKit
import StrongroomServerPostgres
import StrongroomTesting

@testable import StrongroomServer

/// Runs `body` with a migrated store on `engine`: SQLite in a temporary directory, or a fresh PostgreSQL database.
func withStore(
    _ engine: TestEngine,
    _ body: @escaping @Sendable (SQLServerStore) async throws -> Void
) async throws {
    var logger = Logger(label: "store-test")
    logger.logLevel = .warning
    switch engine {
    case .sqlite:
        try await withTemporaryDirectory { directory in
            try await EmbeddedDatabase.open(dataDirectory: directory.path, logger: logger).withStore(body)
        }
    case .postgres:
        try await TestDatabase.withPostgres { url in
            // A request waits as long as it must for a pooled connection: a busy machine is slow, not wrong.
            try await PostgresServerDatabase.open(url: url, logger: logger, connectionWait: .seconds(600))
                .withStore(body)
        }
    }
}

/// Takes `store`'s schema back to before step `version` (13 or later), as a store written by an earlier release
/// left it: each later step's tables, indexes and triggers dropped, in reverse order, and their versions forgotten.
func rewindSchema(_ store: SQLServerStore, below version: Int) async throws {
    let recreated = "CREATE INDEX records_type_files ON records (type) WHERE file_meta IS NOT NULL"
    let undo: [Int: [String]] = [
        13: [
            "DROP INDEX records_sync_doc", "DROP INDEX records_writer_type", "DROP INDEX records_type_files",
            "ALTER TABLE records DROP COLUMN sync_doc",
        ],
        14: ["DROP TABLE keylog"],
        15: store.engine == .postgres
            ? [
                "DROP TRIGGER records_attachment_bytes_insert ON records",
                "DROP TRIGGER records_attachment_bytes_delete ON records",
                "DROP TRIGGER records_attachment_bytes_update ON records", "DROP FUNCTION records_attachment_bytes()",
                "DROP TABLE sync_attachment_bytes", recreated,
            ]
            : [
                "DROP TRIGGER records_attachment_bytes_insert", "DROP TRIGGER records_attachment_bytes_delete",
                "DROP TRIGGER records_attachment_bytes_update", "DROP TABLE sync_attachment_bytes", recreated,
            ],
        17: ["DROP INDEX notes_source", "ALTER TABLE notes DROP COLUMN source"],
        18: ["DROP TABLE access_key_generations"],
        19: ["DROP TABLE access_key_links"],
        20: [
            "DROP INDEX access_keys_reader", "DROP INDEX access_keys_authorizer",
            "ALTER TABLE clients DROP COLUMN keys_changed", "ALTER TABLE access_keys DROP COLUMN authorizer_key",
            "ALTER TABLE keylog DROP COLUMN signatures",
        ],
        21: ["ALTER TABLE clients DROP COLUMN hybrid_key"],
        22: ["ALTER TABLE access_keys DROP COLUMN hybrid_eak"],
        23: ["ALTER TABLE records DROP COLUMN file_prologue"],
        // Step 15's triggers again (its statements after the table, the backfill and the index drop).
        16:
            (store.engine == .postgres
            ? [
                "DROP TRIGGER records_attachment_bytes_insert ON records",
                "DROP TRIGGER records_attachment_bytes_delete ON records",
                "DROP TRIGGER records_attachment_bytes_update ON records", "DROP FUNCTION records_attachment_bytes()",
            ]
            : [
                "DROP TRIGGER records_attachment_bytes_insert", "DROP TRIGGER records_attachment_bytes_delete",
                "DROP TRIGGER records_attachment_bytes_update",
            ]) + store.attachmentBytesStep.dropFirst(3),
    ]
    precondition(version >= 13 && undo.keys.contains(version), "steps before 13 are not undone here")
    for step in undo.keys.sorted(by: >) where step >= version {
        for statement in undo[step] ?? [] { try await store.database.raw("\(unsafeRaw: statement)").run() }
    }
    try await store.database.raw("DELETE FROM schema_version WHERE version >= \(bind: version)").run()
}
