// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Logging
public import PostgresNIO
public import StrongroomBackend
import Synchronization

/// Nonces of accepted signed requests in a PostgreSQL table, shared by every instance of a backend behind a load
/// balancer: a request replayed to another instance is refused there too.
///
/// One row per nonce, with a primary key on the signer's key and the nonce, so two instances accepting the same
/// nonce at once cannot both succeed (PostgreSQL's `INSERT … ON CONFLICT` decides). Rows older than the window
/// are deleted from time to time; the table holds at most the nonces of the last two windows.
///
/// The store runs its queries through your `PostgresClient`; run the client (its `run()`, in your service group)
/// and call ``migrate()`` once before serving.
public struct PostgresNonceStore: NonceStore {
    /// The name of a table is refused.
    public struct InvalidTableName: Error, CustomStringConvertible {
        /// The refused name.
        public let name: String
        public var description: String {
            "\"\(name)\" is not a table name this store accepts (1 to 53 lowercase letters, digits or underscores, starting with a letter)"
        }
    }

    private let client: PostgresClient
    private let table: String
    private let logger: Logger
    private let pruneInterval: Int64
    /// The `forgettingBefore` of the last prune (shared by copies of this store).
    private let lastPrune: Shared

    private final class Shared: Sendable {
        let value = Mutex<Int64>(.min)
    }

    /// A store keeping its nonces in `table` through `client`.
    ///
    /// - Parameters:
    ///   - client: the pool the store queries through (yours to run).
    ///   - table: the table's name: 1 to 53 lowercase letters, digits or underscores, starting with a letter.
    ///   - pruneInterval: how often (in seconds of signing time) rows past the window are deleted.
    ///   - logger: where the store's queries log.
    /// - Throws: ``InvalidTableName`` for any other name.
    public init(
        client: PostgresClient,
        table: String = "strongroom_nonces",
        pruneInterval: Duration = .seconds(60),
        logger: Logger = Logger(label: "strongroom.backend.nonces")
    ) throws(InvalidTableName) {
        guard Self.isPlainIdentifier(table) else { throw InvalidTableName(name: table) }
        self.client = client
        self.table = table
        self.pruneInterval = max(1, pruneInterval.components.seconds)
        self.logger = logger
        self.lastPrune = Shared()
    }

    /// Creates the table and its index if they do not exist yet (safe to run from several instances at once).
    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            // One migration at a time across instances: CREATE … IF NOT EXISTS is not safe under concurrency.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                    public_key TEXT NOT NULL,
                    nonce TEXT NOT NULL,
                    signed_at BIGINT NOT NULL,
                    PRIMARY KEY (public_key, nonce)
                )
                """,
                logger: logger
            )
            try await connection.query(
                "CREATE INDEX IF NOT EXISTS \(unescaped: table)_signed_at ON \(unescaped: table) (signed_at)",
                logger: logger
            )
        }
    }

    public func remember(
        publicKey: String,
        nonce: String,
        timestamp: Int64,
        forgettingBefore: Int64
    ) async throws
        -> Bool
    {
        try await pruneIfDue(forgettingBefore)
        // A new row, or a row past the window (not yet pruned) taken over; a live row is a replay: no row returned.
        let rows = try await client.query(
            """
            INSERT INTO \(unescaped: table) AS existing (public_key, nonce, signed_at)
            VALUES (\(publicKey), \(nonce), \(timestamp))
            ON CONFLICT (public_key, nonce) DO UPDATE SET signed_at = EXCLUDED.signed_at
            WHERE existing.signed_at < \(forgettingBefore)
            RETURNING 1
            """,
            logger: logger
        )
        var accepted = false
        for try await _ in rows { accepted = true }
        return accepted
    }

    /// Deletes rows past the window once `forgettingBefore` has moved a prune interval since the last time.
    private func pruneIfDue(_ forgettingBefore: Int64) async throws {
        let due = lastPrune.value.withLock { last in
            let (distance, overflow) = forgettingBefore.subtractingReportingOverflow(last)
            guard overflow || distance >= pruneInterval else { return false }
            last = forgettingBefore
            return true
        }
        guard due else { return }
        try await client.query("DELETE FROM \(unescaped: table) WHERE signed_at < \(forgettingBefore)", logger: logger)
    }

    /// The advisory lock key the migration holds (any fixed number; "SRNONCE1" in ASCII).
    private static let migrationLock: Int64 = 0x5352_4E4F_4E43_4531

    static func isPlainIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...53).contains(bytes.count), let first = bytes.first,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }
}
