// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import StrongroomBackend
import StrongroomCrypto
import StrongroomTesting
import Testing

@testable import StrongroomBackendPostgres

/// The PostgreSQL nonce store against a real cluster (`Scripts/postgres.sh`; CI always has one).
@Suite(.enabled(if: TestEngine.available.contains(.postgres)))
struct PostgresNonceStoreTests {
    @Test("Of many instances accepting one nonce at once, exactly one succeeds")
    func oneWinner() async throws {
        try await withStores(2) { stores, _ in
            // Both instances migrate at once (the advisory lock keeps CREATE … IF NOT EXISTS from racing).
            try await withThrowingTaskGroup { group in
                for store in stores { group.addTask { try await store.migrate() } }
                try await group.waitForAll()
            }
            for round in 0..<4 {
                let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<16 {
                        group.addTask {
                            try await stores[index % 2].remember(
                                publicKey: "key",
                                nonce: "nonce-\(round)",
                                timestamp: 1_000,
                                forgettingBefore: 400
                            )
                        }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(accepted == 1)
            }
            // The same nonce from another signer is its own.
            #expect(
                try await stores[0].remember(
                    publicKey: "other",
                    nonce: "nonce-0",
                    timestamp: 1_000,
                    forgettingBefore: 400
                )
            )
        }
    }

    @Test("A nonce past the window is taken over, a live one is a replay; old rows are pruned")
    func window() async throws {
        try await withStores(1, pruneInterval: .seconds(40)) { stores, clients in
            let store = stores[0]
            try await store.migrate()
            try await store.migrate()  // twice is harmless
            func remember(_ nonce: String, at timestamp: Int64, forgettingBefore: Int64) async throws -> Bool {
                try await store.remember(
                    publicKey: "k",
                    nonce: nonce,
                    timestamp: timestamp,
                    forgettingBefore: forgettingBefore
                )
            }
            func rows() async throws -> Int {
                var count = 0
                for try await (value) in try await clients[0].query("SELECT count(*) FROM strongroom_nonces")
                    .decode(Int.self)
                { count = value }
                return count
            }
            // The first call prunes (nothing yet); the next prune is due 40 s of signing time later.
            for index in 0..<50 {
                #expect(try await remember("n\(index)", at: Int64(index), forgettingBefore: 0))
            }
            #expect(try await remember("n10", at: 10, forgettingBefore: 10) == false)
            // No prune due (20 s later): n15, signed before the window, is taken over; n30 is still live.
            #expect(try await remember("n15", at: 500, forgettingBefore: 20))
            #expect(try await remember("n30", at: 500, forgettingBefore: 20) == false)
            #expect(try await rows() == 50)
            // Due now: every row signed before 41 goes (n0…n40 but n15, re-signed at 500), then n40 is new again.
            #expect(try await remember("n40", at: 600, forgettingBefore: 41))
            #expect(try await rows() == 9 + 1 + 1)
        }
    }

    @Test("A signed request replayed to another instance of the backend is refused there")
    func replayAcrossInstances() async throws {
        try await withStores(2) { stores, _ in
            try await stores[0].migrate()
            let signingKey = SigningPrivateKey()
            let clientID = "2a1c7e52-49a4-4c3b-9b6e-0c7a8d5f4e31"
            func backend(_ store: PostgresNonceStore) -> Application<RouterResponder<BackendRequestContext>> {
                let router = Router(context: BackendRequestContext.self)
                router.add(
                    middleware: TSV1SignatureMiddleware(signers: .keys([clientID: signingKey.publicKey]), nonces: store)
                )
                router.get("me") { _, context -> String in context.caller.signer?.clientID ?? "?" }
                var logger = Logger(label: "nonce-store-backend")
                logger.logLevel = .critical
                return Application(
                    router: router,
                    configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                    logger: logger
                )
            }
            let authorization = TSV1.authorization(
                for: .init(method: "GET", path: "/me"),
                clientID: clientID,
                signingKey: signingKey
            )
            let second = backend(stores[1])
            // In-process (the router test framework): no sockets, so nothing here can wait on a connection a
            // busy CI machine left half-closed (a hang CI met twice with the live framework).
            try await backend(stores[0]).test(.router) { first in
                try await second.test(.router) { second in
                    let accepted = try await first.execute(
                        uri: "/me",
                        method: .get,
                        headers: [.authorization: authorization]
                    )
                    #expect(accepted.status == .ok)
                    #expect(String(buffer: accepted.body) == clientID)
                    for instance in [second, first] {
                        let replayed = try await instance.execute(
                            uri: "/me",
                            method: .get,
                            headers: [.authorization: authorization]
                        )
                        #expect(replayed.status == .unauthorized)
                    }
                }
            }
        }
    }

    @Test("Table names other than plain identifiers are refused")
    func tableNames() async throws {
        for name in ["", "Nonces", "1nonces", "nonces; DROP TABLE x", "n\u{e9}", String(repeating: "a", count: 54)] {
            #expect(PostgresNonceStore.isPlainIdentifier(name) == false, "\(name)")
        }
        for name in ["nonces", "strongroom_nonces", "a1_", String(repeating: "a", count: 53)] {
            #expect(PostgresNonceStore.isPlainIdentifier(name), "\(name)")
        }
    }

    /// Runs `body` with `count` stores, each through its own client (as separate instances would), on one fresh
    /// database.
    private func withStores(
        _ count: Int,
        pruneInterval: Duration = .seconds(60),
        _ body: @Sendable ([PostgresNonceStore], [PostgresClient]) async throws -> Void
    ) async throws {
        try await TestDatabase.withPostgres { url in
            let clients = try (0..<count).map { _ in try PostgresClient(testURL: url) }
            // Each client runs in a task of its own, cancelled at the end and not awaited: three CI main passes hung
            // idle with a test of this suite in flight and none of its connections open, which is what a client
            // whose run() does not return on cancellation would do inside a task group waiting for it. The
            // database is dropped WITH (FORCE) after, whatever the clients still hold.
            let runs = clients.map { client in Task { await client.run() } }
            defer { for run in runs { run.cancel() } }
            try await body(clients.map { try PostgresNonceStore(client: $0, pruneInterval: pruneInterval) }, clients)
        }
    }
}

extension PostgresClient {
    /// A client for a test cluster's `postgres://user@host:port/database?sslmode=disable` URL.
    convenience init(testURL: String) throws {
        guard let components = URLComponents(string: testURL), let host = components.host,
            let user = components.user
        else { throw BadURL() }
        var logger = Logger(label: "nonce-store-test")
        logger.logLevel = .critical
        self.init(
            configuration: .init(
                host: host,
                port: components.port ?? 5432,
                username: user,
                password: components.password,
                database: String(components.path.dropFirst()),
                tls: .disable
            ),
            backgroundLogger: logger
        )
    }
}

struct BadURL: Error {}
