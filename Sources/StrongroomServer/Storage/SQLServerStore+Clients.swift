// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
package import StrongroomWire

/// Settings, registration tokens, clients and the TSV1 replay cache.
extension SQLServerStore {
    // MARK: Settings and tokens

    package func setting(_ key: String) async throws -> String? {
        try await database.raw("SELECT value FROM settings WHERE key = \(bind: key)").first()?
            .decode(column: "value", as: String.self)
    }

    package func setSettingIfAbsent(_ key: String, value: String) async throws {
        try await database.raw(
            "INSERT INTO settings (key, value) VALUES (\(bind: key), \(bind: value)) ON CONFLICT (key) DO NOTHING"
        ).run()
    }

    package func createRegistrationToken(_ token: StoredRegistrationToken) async throws {
        try await database.raw(
            """
            INSERT INTO registration_tokens (token, name, uses, maximum_uses, enabled)
            VALUES (\(bind: token.token), \(bind: token.name), \(bind: token.uses), \(bind: token.maximumUses),
            \(bind: token.enabled)) ON CONFLICT (token) DO NOTHING
            """
        ).run()
    }

    package func registrationTokens() async throws -> [StoredRegistrationToken] {
        try await database.raw("SELECT * FROM registration_tokens ORDER BY name, token").all().map { row in
            StoredRegistrationToken(
                token: try row.decode(column: "token", as: String.self),
                name: try row.decode(column: "name", as: String.self),
                uses: try row.decode(column: "uses", as: Int.self),
                maximumUses: try row.decode(column: "maximum_uses", as: Int?.self),
                enabled: try row.decode(column: "enabled", as: Bool.self)
            )
        }
    }

    package func useRegistrationToken(_ token: String) async throws -> Bool {
        try await database.raw(
            """
            UPDATE registration_tokens SET uses = uses + 1 WHERE token = \(bind: token) AND enabled = \(bind: true)
            AND (maximum_uses IS NULL OR uses < maximum_uses) RETURNING token
            """
        ).first() != nil
    }

    package func revokeRegistrationToken(_ token: String) async throws -> Bool {
        try await database.raw(
            "UPDATE registration_tokens SET enabled = \(bind: false) WHERE token = \(bind: token) RETURNING token"
        ).first() != nil
    }

    // MARK: Clients

    package func insertClient(_ client: StoredClient) async throws {
        try await database.transaction { [engine] session in
            try await session.raw(
                """
                INSERT INTO clients (client_id, name, public_key, signing_key, api_key_id, api_secret_hash, enabled,
                created, registration_token) VALUES (\(bind: client.clientID), \(bind: client.name),
                \(bind: try json(client.publicKey)), \(bind: try client.signingKey.map(json)), \(bind: client.apiKeyID),
                \(bind: client.apiSecretHash), \(bind: client.enabled), \(bind: client.created.microseconds),
                \(bind: client.registrationToken))
                """
            ).run()
            if let leaf = PendingKeyLogLeaf(registering: client) {
                try await Self.appendKeyLog([leaf], in: session, engine: engine)
            }
        }
    }

    package func client(id: ClientID) async throws -> StoredClient? {
        try await database.raw("SELECT * FROM clients WHERE client_id = \(bind: id.description)").first().map(
            decodeClient
        )
    }

    package func client(apiKeyID: String) async throws -> StoredClient? {
        try await database.raw("SELECT * FROM clients WHERE api_key_id = \(bind: apiKeyID)").first().map(decodeClient)
    }

    package func clientNames(ids: [String]) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await database.raw(
            "SELECT client_id, name FROM clients WHERE client_id IN (\(binds: ids.map { $0 as any Encodable & Sendable }))"
        ).all()
        var names: [String: String] = [:]
        for row in rows {
            names[try row.decode(column: "client_id", as: String.self)] = try row.decode(
                column: "name",
                as: String.self
            )
        }
        return names
    }

    func decodeClient(_ row: any SQLRow) throws -> StoredClient {
        StoredClient(
            clientID: try row.decode(column: "client_id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            publicKey: try decodeJSON(PublicKeyObject.self, try row.decode(column: "public_key", as: String.self)),
            signingKey: try row.decode(column: "signing_key", as: String?.self).map {
                try decodeJSON(SigningKeyObject.self, $0)
            },
            apiKeyID: try row.decode(column: "api_key_id", as: String.self),
            apiSecretHash: try row.decode(column: "api_secret_hash", as: String.self),
            enabled: try row.decode(column: "enabled", as: Bool.self),
            created: Timestamp(microseconds: try row.decode(column: "created", as: Int64.self)),
            registrationToken: try row.decode(column: "registration_token", as: String?.self),
            keysChanged: try row.decode(column: "keys_changed", as: Int64?.self).map(Timestamp.init(microseconds:)),
            hybridKey: try row.decode(column: "hybrid_key", as: String?.self)
        )
    }

    // MARK: TSV1 nonces

    package func rememberNonce(publicKey: String, nonce: String, timestamp: Int64) async throws -> Bool {
        try await database.raw(
            """
            INSERT INTO tsv1_nonces (public_key, nonce, seen_at) VALUES (\(bind: publicKey), \(bind: nonce),
            \(bind: timestamp)) ON CONFLICT (public_key, nonce) DO NOTHING RETURNING nonce
            """
        ).first() != nil
    }

    package func forgetNonces(olderThan timestamp: Int64) async throws {
        try await database.raw("DELETE FROM tsv1_nonces WHERE seen_at < \(bind: timestamp)").run()
    }
}
