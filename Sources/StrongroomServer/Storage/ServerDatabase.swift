// Strongroom — SPDX-License-Identifier: Apache-2.0
public import ServiceLifecycle

/// An open database engine: the store over it, and how to close it. As a `Service`, it waits for graceful
/// shutdown and then closes itself.
public protocol ServerDatabase: Service {
    /// The store over this database.
    var store: SQLServerStore { get }
    /// Closes every connection.
    func close() async throws
    /// Announces writes between the instances sharing this database; nil (the default) for a database only one
    /// instance serves.
    var announcer: (any WriteAnnouncer)? { get }
}

extension ServerDatabase {
    /// Runs `body` with the store, then closes the database, whether `body` succeeded or not.
    package func withStore<R>(_ body: (SQLServerStore) async throws -> R) async throws -> R {
        do {
            let result = try await body(store)
            try await close()
            return result
        } catch {
            try await close()
            throw error
        }
    }
}
