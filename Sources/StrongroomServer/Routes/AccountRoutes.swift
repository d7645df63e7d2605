// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Registration, tokens and client lookup.
struct AccountRoutes {
    let store: any ClientStore & KeyLogStore
    let keyLog: ServerKeyLog
    let tokens: TokenIssuer
    let tokenLifetime: Duration
    let limits: ServerLimits
    let failures: any FailureCounting
    let clock: ServerClock

    /// Credential responses are never cached by a browser or proxy.
    static let noStore: HTTPFields = [.cacheControl: "no-store"]

    /// The unauthenticated paths: registration, tokens and the credential-backup acknowledgement.
    var publicRoutes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.register), use: register)
        routes.post(RouterPath(.token), use: token)
        routes.post(RouterPath(.backup), use: backup)
        return routes
    }

    /// Client lookup, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        RouteCollection(context: StrongroomRequestContext.self).get(RouterPath(.client), use: clientInfo)
    }

    /// `POST /v1/account/e3db/clients/register` → 201 + `X-Backup-Client`.
    func register(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try await failures.check(context.sourceAddress)
        let body = try await decodeBody(RegistrationRequest.self, request, context)
        let name = body.client.name
        guard !name.isEmpty, name.utf8.count <= limits.maximumNameBytes else {
            throw ServerError.badRequest("a client name is 1 to \(limits.maximumNameBytes) bytes")
        }
        try Self.validate(body.client.publicKey, body.client.signingKey)
        guard body.token.utf8.count <= 1024, try await store.useRegistrationToken(body.token) else {
            await failures.recordFailure(context.sourceAddress, logger: context.logger)
            context.logger.info(
                "registration refused: unknown, revoked or used-up token",
                metadata: ["source": .string(context.sourceAddress)]
            )
            throw ServerError.unauthorized("unknown, revoked or used-up registration token")
        }
        let apiSecret = hex(SecureRandom.data(count: 32))
        let client = StoredClient(
            clientID: ClientID.random().description,
            name: name,
            publicKey: body.client.publicKey,
            signingKey: body.client.signingKey,
            apiKeyID: hex(SecureRandom.data(count: 32)),
            apiSecretHash: Self.hash(secret: apiSecret),
            enabled: true,
            created: clock.wallTimestamp,
            registrationToken: body.token
        )
        try await store.insertClient(client)
        let backup = try await store.setting("backup_client_id") ?? ""
        var headers = Self.noStore
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
        try await failures.check(context.sourceAddress)
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
        guard let keyID, let secret, !keyID.utf8.contains(0), !secret.utf8.contains(0), keyID.utf8.count <= 256,
            let client = try await store.client(apiKeyID: keyID), client.enabled,
            ConstantTime.equals(Self.hash(secret: secret), client.apiSecretHash)
        else {
            await failures.recordFailure(context.sourceAddress, logger: context.logger)
            context.logger.info(
                "token refused: unknown or disabled API key, or wrong secret",
                metadata: ["source": .string(context.sourceAddress)]
            )
            throw ServerError.unauthorized("Unauthorized. Check your API key pair")
        }
        let now = clock.unixSeconds
        let lifetime = tokenLifetime.components.seconds
        return try json(
            TokenResponse(
                accessToken: tokens.issue(
                    clientID: client.clientID,
                    expiresAt: now + lifetime,
                    issuedAt: clock.wallTimestamp.microseconds
                ),
                expiresIn: Int(lifetime),
                expiresAt: Timestamp(microseconds: (now + lifetime) * 1_000_000)
            ),
            headers: Self.noStore
        )
    }

    /// `GET /v1/storage/clients/{id}`: any authenticated client may look up any client; unknown or malformed → 404.
    func clientInfo(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        _ = try context.caller()
        guard let client = try await store.client(id: try context.clientID("id")) else {
            throw ServerError.notFound("no such client")
        }
        // `?keylog_since=` (a Strongroom client's newest checkpoint size) adds the consistency proof from it.
        let since = try request.uri.queryParameters.get("keylog_since").map { _ in
            try KeyLogRoutes.number("keylog_since", request)
        }
        let now = UInt64(max(0, clock.wallTimestamp.microseconds))
        return try json(try await keyLog.servedInfo(of: client, in: store, since: since, now: now))
    }

    /// `POST /v1/account/backup/{token}/{client_id}`: acknowledges a credential backup. The JS SDK sends it with no
    /// credentials and ignores the answer beyond its status.
    ///
    /// The answer is the same `201 {}` whether or not the client was registered with that token and the token is
    /// still enabled, so the endpoint is no oracle for guessing registration tokens; a mismatch only counts as a
    /// failure for the source's rate limit.
    func backup(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        try await failures.check(context.sourceAddress)
        let token = try context.segment("token")
        var acknowledged = false
        if token.utf8.count <= 1024, let clientID = ClientID(try context.segment("client")),
            let client = try await store.client(id: clientID),
            let registeredWith = client.registrationToken, ConstantTime.equals(registeredWith, token)
        {
            acknowledged = try await store.registrationTokens().contains { $0.token == registeredWith && $0.enabled }
        }
        if !acknowledged {
            await failures.recordFailure(context.sourceAddress, logger: context.logger)
            context.logger.info(
                "credential backup not acknowledged",
                metadata: ["source": .string(context.sourceAddress)]
            )
        }
        return try json([String: String](), status: .created, headers: Self.noStore)
    }

    /// Public keys must be real keys: an X25519 key that is not of small order, or a P-384 key in PEM
    /// SubjectPublicKeyInfo (base64url, as the NIST-mode SDKs send it); a signing key on the Ed25519 curve.
    static func validate(_ publicKey: PublicKeyObject, _ signingKey: SigningKeyObject?) throws {
        if let key = publicKey.curve25519 {
            guard let parsed = try? EncryptionPublicKey(base64URLEncoded: key),  // the reason is in the message
                parsed.isUsableForKeyAgreement
            else {
                throw ServerError.badRequest("public_key.curve25519 is not a usable X25519 key")
            }
        } else if let key = publicKey.p384 {
            guard isP384PublicKey(key) else {
                throw ServerError.badRequest("public_key.p384 is not a P-384 public key (base64url of PEM)")
            }
        } else {
            throw ServerError.badRequest("public_key needs curve25519 (or p384)")
        }
        if let signing = signingKey?.ed25519 {
            guard let parsed = try? SigningPublicKey(base64URLEncoded: signing),  // the reason is in the message
                parsed.isValidPoint
            else {
                throw ServerError.badRequest("signing_key.ed25519 is not a valid Ed25519 key")
            }
        }
    }

    /// Whether `text` is base64url of a PEM P-384 public key (at most 4 KiB).
    private static func isP384PublicKey(_ text: String) -> Bool {
        guard text.utf8.count <= 4096, let pem = try? Base64URL.decode(text, padding: .allowed),  // not base64url
            let string = String(data: pem, encoding: .utf8)
        else { return false }
        return (try? P384.Signing.PublicKey(pemRepresentation: string)) != nil  // not a P-384 key
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
func hex(_ data: Data) -> String { data.hexString }
