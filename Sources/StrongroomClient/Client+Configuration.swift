// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Everything a client needs to act: its identity, API credentials, keys and the server's URL.
    ///
    /// Its `description` shows the client ID and URL only; the API secret and private keys never print.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The client's ID.
        public var clientID: UUID
        /// The client's name at registration.
        public var clientName: String
        /// The API key ID (the public half of the credentials).
        public var apiKeyID: String
        /// The API secret, kept in a buffer that wipes itself.
        public var apiSecret: SecureBytes
        /// The client's encryption and signing keys.
        public var keys: ClientKeys
        /// The server, such as `http://127.0.0.1:8000` (no trailing slash needed).
        public var apiURL: URL
        /// How requests prove who sends them.
        public var authentication: Authentication = .bearerToken
        /// How the public keys the server gives are checked against its key log (verified by default).
        public var keyLog = KeyLogVerification()
        /// How access keys are sealed: with the post-quantum X-Wing wrap beside X25519 by default, where the reader
        /// has an X-Wing key (``PostQuantumPolicy``).
        public var postQuantum = PostQuantumPolicy()

        /// How a client authenticates its requests.
        public enum Authentication: Sendable, Hashable {
            /// An OAuth client-credentials token from the API key pair (what every official SDK uses for storage).
            case bearerToken
            /// A TSV1 Ed25519 signature on every request (method, path, query, time, nonce); the API secret is not
            /// used and no token exists to steal. Needs the client's signing key to be registered.
            case signedRequests
        }

        /// Assembles a configuration (normally ``Client/register(token:clientName:apiURL:keys:options:httpClient:)``
        /// returns one).
        public init(
            clientID: UUID,
            clientName: String,
            apiKeyID: String,
            apiSecret: SecureBytes,
            keys: ClientKeys,
            apiURL: URL
        ) {
            self.clientID = clientID
            self.clientName = clientName
            self.apiKeyID = apiKeyID
            self.apiSecret = apiSecret
            self.keys = keys
            self.apiURL = apiURL
        }

        public var description: String { "Client.Configuration(\(ClientID(clientID).description) at \(apiURL))" }
    }
}
