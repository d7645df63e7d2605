// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Registration, tokens and client lookup.
struct AccountRoutes {
    let store: any ServerStore
    let tokens: TokenIssuer
    let tokenLifetime: Duration

    /// `POST /v1/account/e3db/clients/register` → 201 + `X-Backup-Client`.
    func register(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let body = try await decodeBody(RegistrationRequest.self, request, context)
        let name = body.client.name
        guard !name.isEmpty, name.count <= 512 else {
            throw ServerError.badRequest("a client name is 1 to 512 characters")
        }
        if let key = body.client.publicKey.curve25519 {
            guard (try? EncryptionPublicKey(base64URLEncoded: key)) != nil else {  // the reason is in the message
                throw ServerError.badRequest("public_key.curve25519 is not an X25519 key")
            }
        } else if body.client.publicKey.p384 == nil {
            throw ServerError.badRequest("public_key needs curve25519 (or p384)")
        }
        if let signing = body.client.signingKey?.ed25519, (try? SigningPublicKey(base64URLEncoded: signing)) == nil {
            throw ServerError.badRequest("signing_key.ed25519 is not an Ed25519 key")
        }
        guard try await store.useRegistrationToken(body.token) else {
            throw ServerError.unauthorized("unknown, revoked or used-up registration token")
        }
        let apiSecret = hex(SecureRandom.data(count: 32))
        let client = StoredClient(
            clientID: SecureRandom.uuid().uuidString.lowercased(),
            name: name,
            publicKey: body.client.publicKey,
            signingKey: body.client.signingKey,
            apiKeyID: hex(SecureRandom.data(count: 32)),
            apiSecretHash: Self.hash(secret: apiSecret),
            enabled: true,
            created: Timestamp(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000)),
            registrationToken: body.token
        )
        try await store.insertClient(client)
        let backup = try await store.setting("backup_client_id") ?? ""
        var headers = HTTPFields()
        if let backupHeader = HTTPField.Name("X-Backup-Client") { headers[backupHeader] = backup }
        return try json(
            RegistrationResponse(
                clientID: client.clientID,
                apiKeyID: client.apiKeyID,
                apiSecret: apiSecret,
                name: client.name,
                publicKey: client.publicKey,
                signingKey: client.signingKey,
                enabled: true
            ),
            status: .created,
            headers: headers
        )
    }

    /// `POST /v1/auth/token`: client credentials by Basic auth or form fields, form parsed whatever the type.
    func token(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let buffer = try await request.body.collect(upTo: 64 << 10)
        let form = Self.parseForm(String(decoding: buffer.readableBytesView, as: UTF8.self))
        if let grant = form["grant_type"], grant != "client_credentials" {
            throw ServerError.badRequest("grant_type must be client_credentials")
        }
        var keyID = form["client_id"]
        var secret = form["client_secret"]
        if let header = request.headers[.authorization], header.count > 6, header.prefix(6).lowercased() == "basic " {
            guard let decoded = Data(base64Encoded: String(header.dropFirst(6))),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw ServerError.unauthorized("malformed Basic credentials") }
            keyID = String(text[..<colon])
            secret = String(text[text.index(after: colon)...])
        }
        guard let keyID, let secret, !keyID.utf8.contains(0), !secret.utf8.contains(0),
            let client = try await store.client(apiKeyID: keyID), client.enabled,
            ConstantTime.equals(Self.hash(secret: secret), client.apiSecretHash)
        else { throw ServerError.unauthorized("Unauthorized. Check your API key pair") }
        let now = Int64(Date().timeIntervalSince1970)
        let lifetime = tokenLifetime.components.seconds
        return try json(
            TokenResponse(
                accessToken: tokens.issue(clientID: client.clientID, expiresAt: now + lifetime),
                expiresIn: Int(lifetime),
                expiresAt: Timestamp(microseconds: (now + lifetime) * 1_000_000)
            )
        )
    }

    /// `GET /v1/storage/clients/{id}`: any authenticated client may look up any client; unknown or malformed → 404.
    func clientInfo(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        guard let client = try await store.client(id: try context.uuidSegment("id")) else {
            throw ServerError.notFound("no such client")
        }
        return try json(
            ClientInfo(
                clientID: client.clientID,
                publicKey: client.publicKey,
                signingKey: client.signingKey,
                validated: true
            )
        )
    }

    /// `POST /v1/account/backup/{token}/{client_id}`: acknowledges a credential backup. The JS SDK sends it with no
    /// credentials, so the check is that the client was registered with that token.
    func backup(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let token = try context.segment("token")
        guard let clientID = canonicalUUID(try context.segment("client")),
            let client = try await store.client(id: clientID),
            let registeredWith = client.registrationToken, ConstantTime.equals(registeredWith, token)
        else { throw ServerError.notFound("no client registered with that token") }
        return try json([String: String](), status: .created)
    }

    /// SHA-256 of an API secret, hex. Secrets are 256 random bits, so a fast hash is enough.
    static func hash(secret: String) -> String { hex(Data(SHA256.hash(data: Data(secret.utf8)))) }

    static func parseForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}

/// Lowercase hex of bytes.
func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }
