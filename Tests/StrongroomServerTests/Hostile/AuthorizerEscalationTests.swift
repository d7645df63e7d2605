// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import HummingbirdTesting
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// An authorizer shares on the writer's behalf with *other* readers; it can neither read for itself nor touch the
/// writer's own access key. Every policy and access-key route has an authorizer row here.
@Suite struct AuthorizerEscalationTests {
    struct Parties {
        var writer: RegisteredClient
        var authorizer: RegisteredClient
        var reader: RegisteredClient
        var type: String
        var accessKey: AccessKey
    }

    /// A writer with one record of `type`, its EAK, and an authorizer for that type.
    static func setUp(_ api: API) async throws -> Parties {
        let writer = try await api.register("writer")
        let authorizer = try await api.register("authorizer")
        let reader = try await api.register("reader")
        let type = "secret"
        let accessKey = AccessKey()
        _ = try await api.writeRecord(as: writer, type: type, fields: ["f": "v"], accessKey: accessKey)
        let own = accessKey.sealed(to: writer.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
        let ownPath = "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(writer.clientID)/\(type)"
        let stored = try await api.request(
            .put,
            ownPath,
            token: writer.token,
            json: AccessKeyPutRequest(eak: own.wireFormat)
        )
        guard stored.status == .created else { throw TestFailure("writer EAK: \(stored.status)") }
        let forAuthorizer = accessKey.sealed(to: authorizer.keys.encryptionKey.publicKey, by: writer.keys.encryptionKey)
        let authorizerPath =
            "/v1/storage/access_keys/\(writer.clientID)/\(writer.clientID)/\(authorizer.clientID)/\(type)"
        _ = try await api.request(
            .put,
            authorizerPath,
            token: writer.token,
            json: AccessKeyPutRequest(eak: forAuthorizer.wireFormat)
        )
        let grant = try await api.request(
            .put,
            "/v1/storage/policy/\(writer.clientID)/\(writer.clientID)/\(authorizer.clientID)/\(type)",
            token: writer.token,
            json: PolicyRequest(allow: [.init(authorizer: [:])])
        )
        guard grant.status == .created else { throw TestFailure("authorizer grant: \(grant.status)") }
        return Parties(writer: writer, authorizer: authorizer, reader: reader, type: type, accessKey: accessKey)
    }

    static func policyPath(_ p: Parties, reader: String) -> String {
        "/v1/storage/policy/\(p.writer.clientID)/\(p.writer.clientID)/\(reader)/\(p.type)"
    }

    static func keyPath(_ p: Parties, reader: String) -> String {
        "/v1/storage/access_keys/\(p.writer.clientID)/\(p.writer.clientID)/\(reader)/\(p.type)"
    }

    @Test("an authorizer cannot grant itself read, and reads nothing", arguments: TestEngine.available)
    func noSelfGrant(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let p = try await Self.setUp(api)
            let selfGrant = try await api.request(
                .put,
                Self.policyPath(p, reader: p.authorizer.clientID),
                token: p.authorizer.token,
                json: PolicyRequest(allow: [.init(read: [:])])
            )
            #expect(selfGrant.status == .forbidden)
            let search = try await api.request(
                .post,
                "/v1/storage/search",
                token: p.authorizer.token,
                json: SearchRequest(includeData: true, writerIDs: [p.writer.clientID])
            )
            #expect(try JSONDecoder().decode(SearchResponse.self, from: Data(buffer: search.body)).results.isEmpty)
            // Sharing with another reader on the writer's behalf still works.
            let share = try await api.request(
                .put,
                Self.policyPath(p, reader: p.reader.clientID),
                token: p.authorizer.token,
                json: PolicyRequest(allow: [.init(read: [:])])
            )
            #expect(share.status == .created)
        }
    }

    @Test(
        "authorizer row: the writer's own EAK and the authorizer's own slot are out of reach; others' are not",
        arguments: TestEngine.available
    )
    func accessKeyMatrix(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let p = try await Self.setUp(api)
            let eak = p.accessKey.sealed(to: p.reader.keys.encryptionKey.publicKey, by: p.authorizer.keys.encryptionKey)
            let body = AccessKeyPutRequest(eak: eak.wireFormat)
            let bearer = "Bearer \(p.authorizer.token)"
            // The writer's own slot: no delete, no replacement.
            #expect(
                try await api.request(.delete, Self.keyPath(p, reader: p.writer.clientID), authorization: bearer).status
                    == .forbidden
            )
            #expect(
                try await api.request(
                    .put,
                    Self.keyPath(p, reader: p.writer.clientID),
                    token: p.authorizer.token,
                    json: body
                ).status == .forbidden
            )
            // Its own slot: no delete, no replacement.
            #expect(
                try await api.request(.delete, Self.keyPath(p, reader: p.authorizer.clientID), authorization: bearer)
                    .status == .forbidden
            )
            #expect(
                try await api.request(
                    .put,
                    Self.keyPath(p, reader: p.authorizer.clientID),
                    token: p.authorizer.token,
                    json: body
                ).status == .forbidden
            )
            // Another reader's slot: allowed (share on behalf), and deletable (revoke on behalf).
            #expect(
                try await api.request(
                    .put,
                    Self.keyPath(p, reader: p.reader.clientID),
                    token: p.authorizer.token,
                    json: body
                ).status == .created
            )
            #expect(
                try await api.request(.delete, Self.keyPath(p, reader: p.reader.clientID), authorization: bearer).status
                    == .noContent
            )
            // Reading a key: only its reader.
            #expect(
                try await api.request(.get, Self.keyPath(p, reader: p.writer.clientID), authorization: bearer).status
                    == .forbidden
            )
            // The writer's key is intact.
            let own = try await api.request(
                .get,
                Self.keyPath(p, reader: p.writer.clientID),
                authorization: "Bearer \(p.writer.token)"
            )
            #expect(own.status == .ok)
        }
    }

    @Test("authorizer row: policy routes", arguments: TestEngine.available)
    func policyMatrix(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let p = try await Self.setUp(api)
            let token = p.authorizer.token
            let bearer = "Bearer \(token)"
            // It may not make itself (or anyone) an authorizer, nor remove authorizers.
            #expect(
                try await api.request(
                    .put,
                    Self.policyPath(p, reader: p.reader.clientID),
                    token: token,
                    json: PolicyRequest(allow: [.init(authorizer: [:])])
                ).status == .forbidden
            )
            let removal = "/v1/storage/policy/\(p.writer.clientID)/\(p.writer.clientID)/\(p.reader.clientID)"
            #expect(try await api.request(.delete, removal, authorization: bearer).status == .forbidden)
            // It may not deny itself or grant itself read; it may revoke another reader.
            #expect(
                try await api.request(
                    .put,
                    Self.policyPath(p, reader: p.authorizer.clientID),
                    token: token,
                    json: PolicyRequest(deny: [.init(read: [:])])
                ).status == .forbidden
            )
            #expect(
                try await api.request(
                    .put,
                    Self.policyPath(p, reader: p.reader.clientID),
                    token: token,
                    json: PolicyRequest(deny: [.init(read: [:])])
                ).status == .created
            )
            // Listings: it sees what it was granted, not the writer's outgoing shares.
            let granted = try await api.request(.get, "/v1/storage/policy/granted", authorization: bearer)
            #expect(try JSONDecoder().decode([AuthorizerGrant].self, from: Data(buffer: granted.body)).count == 1)
            let outgoing = try await api.request(.get, "/v1/storage/policy/outgoing", authorization: bearer)
            #expect(try JSONDecoder().decode([OutgoingShare].self, from: Data(buffer: outgoing.body)).isEmpty)
            // Once removed, it can share nothing more.
            let remove = "/v1/storage/policy/\(p.writer.clientID)/\(p.writer.clientID)/\(p.authorizer.clientID)"
            #expect(try await api.request(.delete, remove, authorization: "Bearer \(p.writer.token)").status == .ok)
            #expect(
                try await api.request(
                    .put,
                    Self.policyPath(p, reader: p.reader.clientID),
                    token: token,
                    json: PolicyRequest(allow: [.init(read: [:])])
                ).status == .forbidden
            )
        }
    }
}
