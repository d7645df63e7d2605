// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v1/account/e3db/clients/register` body.
public struct RegistrationRequest: Codable, Sendable, Hashable {
    /// The client being registered.
    public struct Client: Codable, Sendable, Hashable {
        /// A display name.
        public var name: String
        /// The client's encryption public key.
        public var publicKey: PublicKeyObject
        /// The client's signing public key, if it has one.
        public var signingKey: SigningKeyObject?

        enum CodingKeys: String, CodingKey {
            case name
            case publicKey = "public_key"
            case signingKey = "signing_key"
        }

        /// Creates the client part of a registration.
        public init(name: String, publicKey: PublicKeyObject, signingKey: SigningKeyObject?) {
            self.name = name
            self.publicKey = publicKey
            self.signingKey = signingKey
        }
    }

    /// The registration token.
    public var token: String
    /// The client being registered.
    public var client: Client

    /// Creates a registration request.
    public init(token: String, client: Client) {
        self.token = token
        self.client = client
    }
}

/// The 201 answer to a registration (with header `X-Backup-Client`).
public struct RegistrationResponse: Codable, Sendable, Hashable {
    /// `client_id` in the JSON.
    public var clientID: String
    /// `api_key_id` in the JSON.
    public var apiKeyID: String
    /// `api_secret` in the JSON.
    public var apiSecret: String
    /// `name` in the JSON.
    public var name: String
    /// `public_key` in the JSON.
    public var publicKey: PublicKeyObject
    /// Always present; `null` when no signing key was registered (the Python SDK indexes it).
    public var signingKey: SigningKeyObject?
    /// `enabled` in the JSON.
    public var enabled: Bool

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case apiKeyID = "api_key_id"
        case apiSecret = "api_secret"
        case name
        case publicKey = "public_key"
        case signingKey = "signing_key"
        case enabled
    }

    /// Creates a registration response.
    public init(
        clientID: String,
        apiKeyID: String,
        apiSecret: String,
        name: String,
        publicKey: PublicKeyObject,
        signingKey: SigningKeyObject?,
        enabled: Bool
    ) {
        self.clientID = clientID
        self.apiKeyID = apiKeyID
        self.apiSecret = apiSecret
        self.name = name
        self.publicKey = publicKey
        self.signingKey = signingKey
        self.enabled = enabled
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(apiKeyID, forKey: .apiKeyID)
        try container.encode(apiSecret, forKey: .apiSecret)
        try container.encode(name, forKey: .name)
        try container.encode(publicKey, forKey: .publicKey)
        try container.encode(signingKey, forKey: .signingKey)  // null, never absent
        try container.encode(enabled, forKey: .enabled)
    }
}

/// `POST /v1/auth/token` answer.
public struct TokenResponse: Codable, Sendable, Hashable {
    /// `access_token` in the JSON.
    public var accessToken: String
    /// `token_type` in the JSON.
    public var tokenType: String
    /// `expires_in` in the JSON.
    public var expiresIn: Int
    /// `expires_at` in the JSON.
    public var expiresAt: Timestamp

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
    }

    /// Creates a token response.
    public init(accessToken: String, tokenType: String = "Bearer", expiresIn: Int, expiresAt: Timestamp) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
    }
}

/// `GET /v1/storage/clients/{id}` answer.
public struct ClientInfo: Codable, Sendable, Hashable {
    /// `client_id` in the JSON.
    public var clientID: String
    /// `public_key` in the JSON.
    public var publicKey: PublicKeyObject
    /// `signing_key` in the JSON.
    public var signingKey: SigningKeyObject?
    /// `validated` in the JSON.
    public var validated: Bool
    /// `keylog` in the JSON (a Strongroom server's addition): the client's newest key leaf, proven in the log.
    public var keyLog: KeyLogInclusion?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case publicKey = "public_key"
        case signingKey = "signing_key"
        case validated
        case keyLog = "keylog"
    }

    /// Creates client information.
    public init(
        clientID: String,
        publicKey: PublicKeyObject,
        signingKey: SigningKeyObject?,
        validated: Bool,
        keyLog: KeyLogInclusion? = nil
    ) {
        self.clientID = clientID
        self.publicKey = publicKey
        self.signingKey = signingKey
        self.validated = validated
        self.keyLog = keyLog
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(clientID, forKey: .clientID)
        try container.encode(publicKey, forKey: .publicKey)
        try container.encode(signingKey, forKey: .signingKey)  // null, never absent (Java needs the key)
        try container.encode(validated, forKey: .validated)
        try container.encodeIfPresent(keyLog, forKey: .keyLog)
    }
}
