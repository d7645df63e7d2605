// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCore
public import StrongroomCrypto

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

        /// Assembles a configuration (normally ``Client/register(token:clientName:apiURL:keys:httpClient:)``
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

        public var description: String { "Client.Configuration(\(clientID.uuidString.lowercased()) at \(apiURL))" }
    }
}
