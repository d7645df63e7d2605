// Strongroom — SPDX-License-Identifier: Apache-2.0
public import AsyncHTTPClient
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

/// An E3DB client: encrypts before anything leaves the process and decrypts only what authenticates.
///
/// It is a `Sendable` final class holding an immutable configuration, an HTTP client and two small actors (the
/// bearer token and the access-key cache), so requests run concurrently. Every method throws ``ClientError``.
public final class Client: Sendable {
    /// This client's identity, credentials and keys.
    public let configuration: Configuration
    let transport: Transport
    let tokens: TokenProvider
    let accessKeys = AccessKeyCache()
    let writerSigningKeys = SigningKeyCache()
    /// The key log as this client has verified it.
    let keyLog: KeyLogVerifier

    /// The client's ID in lowercase, as it goes on the wire.
    var clientID: String { ClientID(configuration.clientID).description }

    /// Creates a client with the default transport (system trust, pooled connections); no request is sent until
    /// it is used.
    public convenience init(configuration: Configuration, httpClient: HTTPClient = Client.defaultHTTPClient) {
        // The default options hold no trust roots to load, so this cannot fail.
        // swift-format-ignore: NeverUseForceTry
        try! self.init(configuration: configuration, options: .init(), httpClient: httpClient)
    }

    /// Creates a client with custom transport options: pinned keys or private roots, timeouts, retries.
    ///
    /// A caller's `httpClient` carries every request with its own proxy and timeouts, under the system's trust
    /// only: AsyncHTTPClient cannot check pins or custom roots, or present a client certificate, in the TLS
    /// handshake, so `options` with a custom `serverTrust` or a
    /// `clientIdentity` together with a caller's client is refused rather than dropped. Leave
    /// `httpClient` out to use them (the SDK's own connections do all three).
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when the trust roots cannot be loaded, or when a
    ///   caller's `httpClient` comes with a custom trust or a client identity.
    public init(
        configuration: Configuration,
        options: TransportOptions,
        httpClient: HTTPClient = Client.defaultHTTPClient
    ) throws(ClientError) {
        self.configuration = configuration
        self.keyLog = KeyLogVerifier(settings: configuration.keyLog)
        self.transport = try Transport(apiURL: configuration.apiURL, http: httpClient, options: options)
        self.tokens = TokenProvider(
            transport: transport,
            apiKeyID: configuration.apiKeyID,
            apiSecret: configuration.apiSecret
        )
    }

    /// A client with `configuration` over an existing transport (the same server, connections and trust): the
    /// client a key change continues with.
    init(configuration: Configuration, sharing transport: Transport) {
        self.configuration = configuration
        self.keyLog = KeyLogVerifier(settings: configuration.keyLog)
        self.transport = transport
        self.tokens = TokenProvider(
            transport: transport,
            apiKeyID: configuration.apiKeyID,
            apiSecret: configuration.apiSecret
        )
    }

    /// Registers a new client with a registration token and returns its configuration.
    ///
    /// - Parameters:
    ///   - token: a registration token from the server's operator.
    ///   - clientName: a name for the new client (1 to 1024 bytes).
    ///   - apiURL: the server, such as `https://e3db.example.com`.
    ///   - keys: the client's keys (new ones by default); only the public halves are sent. Its X-Wing key, when it
    ///     has one, is published at once (``publishHybridKey(_:)``; should that fail, the client is registered
    ///     all the same, and sealed to with X25519 alone until it publishes the key).
    ///   - httpClient: the HTTP client to use (a fail-fast shared one by default); a caller's own client is
    ///     refused together with a custom trust or a client identity (see ``init(configuration:options:httpClient:)``).
    ///   - options: trust, timeouts and retries.
    /// - Throws: ``ClientError/Code/unauthorized`` for a bad token, ``ClientError/Code/badRequest``,
    ///   ``ClientError/Code/transport``.
    public static func register(
        token: String,
        clientName: String,
        apiURL: URL,
        keys: ClientKeys = .generate(),
        options: TransportOptions = .init(),
        httpClient: HTTPClient = Client.defaultHTTPClient
    ) async throws(ClientError) -> Configuration {
        let transport = try Transport(apiURL: apiURL, http: httpClient, options: options)
        let request = RegistrationRequest(
            token: token,
            client: .init(
                name: clientName,
                publicKey: .init(curve25519: keys.encryptionKey.publicKey.base64URLEncoded),
                signingKey: .init(ed25519: keys.signingKey.publicKey.base64URLEncoded)
            )
        )
        let (data, _) = try await transport.expect(
            .POST,
            E3DBPath.register.render(),
            authorization: nil,
            body: request,
            success: [200, 201]
        )
        let response = try Transport.decode(RegistrationResponse.self, from: data)
        guard let clientID = UUID(uuidString: response.clientID) else {
            throw ClientError(.invalidResponse, "the server returned a client ID that is not a UUID")
        }
        let configuration = Configuration(
            clientID: clientID,
            clientName: response.name,
            apiKeyID: response.apiKeyID,
            apiSecret: SecureBytes(copying: Array(response.apiSecret.utf8)),
            keys: keys,
            apiURL: apiURL
        )
        // Others seal keys post-quantum to the client from now on. The client exists whatever happens here: a failure
        // leaves the key unpublished (publishHybridKey(_:) publishes it later) rather than losing the configuration.
        _ = await Client(configuration: configuration, sharing: transport).publishOwnHybridKey()
        return configuration
    }

    /// An authenticated request; on a 401 the token is renewed once and the request retried (E3DB requests
    /// are safe to resend: writes are not retried, a 401 means the server did nothing).
    @discardableResult
    package func authenticated(
        _ method: HTTPVerb,
        _ path: String,
        body: (some Encodable)? = nil as String?,
        success: Set<Int>
    ) async throws(ClientError) -> Data {
        try await answer(method, path, body: body, success: success).data
    }

    /// ``authenticated(_:_:body:success:)`` sending `headers` too, returning the answer's key generation as well.
    func answer(
        _ method: HTTPVerb,
        _ path: String,
        headers: [(String, String)] = [],
        body: (some Encodable)? = nil as String?,
        success: Set<Int>
    ) async throws(ClientError) -> (data: Data, keyGeneration: Int?) {
        if configuration.authentication == .signedRequests {
            return try await transport.expect(
                method,
                path,
                authorization: signature(method, path),
                headers: headers,
                body: body,
                success: success
            )
        }
        do {
            return try await transport.expect(
                method,
                path,
                authorization: "Bearer \(try await tokens.token())",
                headers: headers,
                body: body,
                success: success
            )
        } catch  where error.code == .unauthorized {
            await tokens.invalidate()
            return try await transport.expect(
                method,
                path,
                authorization: "Bearer \(try await tokens.token())",
                headers: headers,
                body: body,
                success: success
            )
        }
    }

    /// A TSV1 `Authorization` header for this request: the path as sent and its query, signed now with a fresh
    /// nonce.
    private func signature(_ method: HTTPVerb, _ path: String) -> String {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return TSV1.authorization(
            for: .init(method: method.rawValue, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : ""),
            clientID: clientID,
            signingKey: configuration.keys.signingKey
        )
    }

    /// Decodes an authenticated JSON answer.
    package func authenticated<Response: Decodable>(
        _ method: HTTPVerb,
        _ path: String,
        body: (some Encodable)? = nil as String?,
        success: Set<Int>,
        as type: Response.Type
    ) async throws(ClientError) -> Response {
        try Transport.decode(Response.self, from: try await authenticated(method, path, body: body, success: success))
    }
}
