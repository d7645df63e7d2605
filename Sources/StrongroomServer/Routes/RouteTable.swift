// Strongroom — SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird
import StrongroomWire

/// The checks a route runs before its handler. Every route is mounted through ``RouteTable`` with one of these,
/// and a test asserts the guard of every route the application serves, so a new route cannot skip the checks.
package enum RouteGuard: String, Sendable, Hashable, CaseIterable {
    /// Nothing: health, readiness, registration, the token exchange (its own credentials), presigned file
    /// transfers (their own signed URL), and the CA chain and revocation list.
    case open
    /// The admin bearer token (`--admin-token`), compared in constant time; 404 when the server has none.
    case admin
    /// A registered client (bearer or TSV1); over mutual TLS its certificate valid, unrevoked and naming it; then
    /// the integrity refusal.
    case client
    /// As ``client`` without the integrity refusal: a refused client can still check in a better report.
    case integrityCheckIn
    /// A TSV1 signature (anonymous allowed); over mutual TLS the certificate valid, unrevoked and, when the signer
    /// is a client, naming it; then the integrity refusal for a client signer.
    case note
    /// The TLS client certificate itself identifies the client (renewal): valid, unrevoked, naming an enabled
    /// client; then the integrity refusal.
    case certificate
}

/// One route the application serves.
package struct RouteInventoryEntry: Sendable, Hashable, CustomStringConvertible {
    /// `GET`, `POST`, …
    package var method: String
    /// The path template, as Hummingbird matches it (`/v1/storage/records/:id`).
    package var path: String
    /// What it checks first.
    package var guarding: RouteGuard

    package var description: String { "\(method) \(path) [\(guarding.rawValue)]" }
}

/// Mounts route collections on the router behind the middleware of their ``RouteGuard``, and keeps the list of
/// what it mounted.
struct RouteTable {
    typealias Context = StrongroomRequestContext
    let router: Router<Context>
    /// The middleware each guard runs, outermost first.
    let middleware: [RouteGuard: [any MiddlewareProtocol<Request, Response, Context>]]
    private(set) var inventory: [RouteInventoryEntry] = []

    init(router: Router<Context>, middleware: [RouteGuard: [any MiddlewareProtocol<Request, Response, Context>]]) {
        self.router = router
        self.middleware = middleware
    }

    /// Mounts `collection` (full paths, from `E3DBPath`) behind `guarding`'s middleware.
    mutating func mount(_ collection: RouteCollection<Context>, guarding: RouteGuard) {
        let group = router.group()
        for layer in middleware[guarding] ?? [] { group.add(middleware: layer) }
        group.addRoutes(collection)
        let recorder = RouteRecorder()
        recorder.addRoutes(collection)
        inventory += recorder.routes.map { RouteInventoryEntry(method: $0.method, path: $0.path, guarding: guarding) }
    }
}

/// Sees the full path and method of each route a collection adds, without serving anything.
private final class RouteRecorder: RouterMethods, @unchecked Sendable {
    // @unchecked: used by one thread while the table is built, never shared.
    typealias Context = StrongroomRequestContext
    var routes: [(method: String, path: String)] = []

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath,
        method: HTTPRequest.Method,
        responder: Responder
    ) -> Self where Responder.Context == Context {
        routes.append((method.rawValue, path.description))
        return self
    }

    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self { self }
}

extension RouterPath {
    /// The route template of an E3DB path (the SDK renders its requests from the same list).
    init(_ path: E3DBPath) { self.init(path.template) }
}
