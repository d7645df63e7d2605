// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StrongroomWire
import Testing

@testable import StrongroomServer

/// Errors from below (SQL, file system) never reach a response: they become a bare 500 `internal`; the server's own
/// errors keep their status and code.
@Suite struct ErrorMappingTests {
    struct DatabaseFailure: Error, CustomStringConvertible {
        var description: String { "SQL error near \"SELECT * FROM clients\" in /var/lib/strongroom/strongroom.sqlite" }
    }

    @Test("a database error is answered as 500 internal without its text; a ServerError passes through")
    func mapping() async throws {
        let router = Router(context: StrongroomRequestContext.self)
        router.add(middleware: ErrorMappingMiddleware())
        router.get("/sql") { _, _ -> Response in throw DatabaseFailure() }
        router.get("/conflict") { _, _ -> Response in throw ServerError.conflict("stale version") }
        let app = Application(router: router)
        try await app.test(.router) { client in
            let sql = try await client.execute(uri: "/sql", method: .get)
            #expect(sql.status == .internalServerError)
            let text = String(buffer: sql.body)
            #expect(!text.contains("SELECT") && !text.contains("/var/lib"), "\(text)")
            let body = try JSONDecoder().decode(ErrorBody.self, from: Data(sql.body.readableBytesView))
            #expect(body.code == "internal")
            let conflict = try await client.execute(uri: "/conflict", method: .get)
            #expect(conflict.status == .conflict)
            #expect(
                try JSONDecoder().decode(ErrorBody.self, from: Data(conflict.body.readableBytesView)).code == "conflict"
            )
        }
    }
}
