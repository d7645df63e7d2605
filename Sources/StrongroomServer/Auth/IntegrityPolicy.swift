// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomWire
import Synchronization

/// The server's integrity policy: which grade refuses a client's requests (`--refuse-integrity`), and the admin
/// token for the history. A client's standing (``ServerStore/integrityVerdict(clientID:)``: held after a
/// `compromised` report until an administrator clears it, else the worst of its instances' newest verdicts) is
/// cached for a few seconds (reports received here update it at once; another instance's within the TTL).
final class IntegrityPolicy: Sendable {
    /// Requests of a client whose newest report is at least this grade fail with `integrity_refused`; nil refuses
    /// none.
    let refusal: IntegrityVerdict?
    /// The bearer token of `GET /v1/admin/integrity`; nil disables the route.
    let adminToken: String?
    private let cache = Mutex<[String: (grade: IntegrityVerdict?, at: ContinuousClock.Instant)]>([:])
    private static let ttl: Duration = .seconds(5)

    init(refusal: IntegrityVerdict?, adminToken: String?) {
        self.refusal = refusal
        self.adminToken = adminToken
    }

    func refuses(_ grade: IntegrityVerdict) -> Bool { refusal.map { grade >= $0 } ?? false }

    func recorded(_ grade: IntegrityVerdict?, for clientID: String) {
        cache.withLock { $0[clientID] = (grade, .now) }
    }

    /// Forgets the cached standing of `clientID` (an administrator cleared it).
    func forget(_ clientID: String) {
        _ = cache.withLock { $0.removeValue(forKey: clientID) }
    }

    /// Throws `integrity_refused` when the policy refuses `clientID`'s newest verdict.
    func check(_ clientID: String, store: any IntegrityStore) async throws {
        guard refusal != nil else { return }
        let now = ContinuousClock.now
        let cached = cache.withLock { cache in cache[clientID].flatMap { now - $0.at < Self.ttl ? $0 : nil } }
        let grade: IntegrityVerdict?
        if let cached {
            grade = cached.grade
        } else {
            grade = try await store.integrityVerdict(clientID: clientID)
            cache.withLock { cache in
                if cache.count > 100_000 { cache.removeAll() }
                cache[clientID] = (grade, now)
            }
        }
        if let grade, refuses(grade) {
            throw ServerError(
                .integrityRefused,
                grade == .compromised
                    ? "this client is held after a compromised integrity report until an administrator clears it"
                    : "this client's integrity standing is \(grade.rawValue)"
            )
        }
    }
}

/// After authentication on the data routes: a client the integrity policy refuses gets 403 `integrity_refused`.
/// Not on `/v1/integrity/…`, so a refused client can still check in a better report.
struct IntegrityRefusalMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext
    let policy: IntegrityPolicy
    let store: any IntegrityStore

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let caller = context.clientID { try await policy.check(caller, store: store) }
        return try await next(request, context)
    }
}
