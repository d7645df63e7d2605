// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomWire

/// What `StrongroomKeyLogSpeed` measured: key log appends per second in batches, with a checkpoint caught up
/// and signed every second, beside the same rows inserted with a bare statement (the database's floor).
struct KeyLogSpeed: Sendable {
    /// Appends per second through the log (entries built, the index found, rows inserted, a checkpoint a second).
    var appendsPerSecond: Double
    /// The same number of rows inserted per second by a bare `INSERT` in the same batches.
    var floorPerSecond: Double
    /// Checkpoints signed during the run.
    var checkpoints: Int

    /// Appends `events` registration leaves in transactions of `batch` to the key log of `store` (which must be
    /// empty and disposable), signing a checkpoint whenever a second has passed.
    static func measure(store: SQLServerStore, events: Int, batch: Int) async throws -> KeyLogSpeed {
        let log = try ServerKeyLog(
            tokenKey: SecureRandom.bytes(count: 32),
            store: store,
            clock: ServerClock(SystemWallClock())
        )
        let keys = KeyLogEntry.Keys(
            encryption: EncryptionPrivateKey().publicKey,
            signing: SigningPrivateKey().publicKey,
            previous: nil
        )
        let clock = ContinuousClock()
        var checkpoints = 0
        var lastCheckpoint = clock.now
        let start = clock.now
        var written = 0
        while written < events {
            let count = min(batch, events - written)
            let leaves = try (0..<count).map { _ in
                PendingKeyLogLeaf(entry: try KeyLogEntry(keysOf: UUID(), keys, registration: true, time: 1))
            }
            try await store.appendKeyLog(leaves)
            written += count
            if clock.now - lastCheckpoint >= .seconds(1) {
                _ = try await log.checkpoint()
                checkpoints += 1
                lastCheckpoint = clock.now
            }
        }
        _ = try await log.checkpoint()
        let elapsed = clock.now - start
        // The floor: the same rows, bare inserts in the same transactions, into a scratch table.
        try await store.database.raw(
            "CREATE TABLE keylog_floor (idx BIGINT PRIMARY KEY, entry \(unsafeRaw: store.engine == .postgres ? "BYTEA" : "BLOB") NOT NULL, client_id TEXT NOT NULL, kind INTEGER NOT NULL)"
        ).run()
        let entry = Data(try KeyLogEntry(keysOf: UUID(), keys, registration: true, time: 1).encoded)
        let floorStart = clock.now
        var inserted = 0
        while inserted < events {
            let count = min(batch, events - inserted)
            let first = inserted
            try await store.database.transaction { session in
                for index in first..<(first + count) {
                    try await session.raw(
                        """
                        INSERT INTO keylog_floor (idx, entry, client_id, kind) VALUES (\(bind: index), \(bind: entry),
                        \(bind: UUID().uuidString.lowercased()), 1)
                        """
                    ).run()
                }
            }
            inserted += count
        }
        let floor = clock.now - floorStart
        try await store.database.raw("DROP TABLE keylog_floor").run()
        return KeyLogSpeed(
            appendsPerSecond: Double(events) / elapsed.seconds,
            floorPerSecond: Double(events) / floor.seconds,
            checkpoints: checkpoints + 1
        )
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
