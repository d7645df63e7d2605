// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomCrypto

extension SecureChannel {
    /// Which servers a channel talks to, what it presents, and how long and how often it tries.
    public struct Configuration: Sendable {
        /// Which TLS servers are accepted (system roots by default; custom roots and SPKI pins per host).
        public var serverTrust: ServerTrust
        /// The certificate presented over mutual TLS, only to a server that passed ``serverTrust``; nil presents
        /// none.
        public var clientIdentity: ClientIdentity?
        /// The longest one attempt may take, from connecting to the last byte of the answer.
        public var requestTimeout: Duration
        /// How often an idempotent request (GET, HEAD, OPTIONS, DELETE) with a body that can be sent again is
        /// tried in all when the connection fails or the server answers 502, 503 or 504. Other requests are sent
        /// once.
        public var maximumAttempts: Int
        /// The wait before the first retry; it doubles for each further one, with jitter.
        public var retryBackoff: Duration
        /// The largest answer ``SecureChannel/send(_:body:timeout:)`` collects (``SecureChannel/stream(_:body:timeout:_:)``
        /// is bounded by its caller).
        public var maximumResponseSize: Int
        /// Signs every request (each attempt afresh); nil sends requests unsigned.
        public var signer: RequestSigner?
        /// The HTTP proxy every connection goes through (`https://` in a `CONNECT` tunnel, verified end to end);
        /// nil connects directly. With a caller's `HTTPClient`, set the proxy on that client instead.
        public var proxy: HTTPProxy?

        /// The defaults: system trust, no client certificate, 60 s per attempt, three attempts 250 ms apart, answers
        /// up to 64 MiB, unsigned, no proxy.
        public init(
            serverTrust: ServerTrust = .system,
            clientIdentity: ClientIdentity? = nil,
            requestTimeout: Duration = .seconds(60),
            maximumAttempts: Int = 3,
            retryBackoff: Duration = .milliseconds(250),
            maximumResponseSize: Int = 64 << 20,
            signer: RequestSigner? = nil,
            proxy: HTTPProxy? = nil
        ) {
            self.serverTrust = serverTrust
            self.clientIdentity = clientIdentity
            self.requestTimeout = requestTimeout
            self.maximumAttempts = max(1, maximumAttempts)
            self.retryBackoff = retryBackoff
            self.maximumResponseSize = max(0, maximumResponseSize)
            self.signer = signer
            self.proxy = proxy
        }

        /// The trust, identity, request timeout, retries and proxy of the SDK's transport options.
        public init(_ options: TransportOptions, signer: RequestSigner? = nil) {
            self.init(
                serverTrust: options.serverTrust,
                clientIdentity: options.clientIdentity,
                requestTimeout: options.requestTimeout,
                maximumAttempts: options.maximumAttempts,
                retryBackoff: options.retryBackoff,
                signer: signer,
                proxy: options.proxy
            )
        }
    }

    /// Signs requests so that the server can tell who sent them and refuse a replay.
    public struct RequestSigner: Sendable {
        private let clientID: String
        private let signingKey: SigningPrivateKey

        /// TSV1 (`Authorization: TSV1-ED25519-BLAKE2B; …`, as the E3DB SDKs sign): the method, the path and the
        /// canonical query, a timestamp and a fresh nonce, signed with `signingKey` (an Ed25519 key, such as one
        /// kept in the keychain); `clientID` names the signer (empty for an anonymous signature by key alone).
        public static func tsv1(clientID: String, signingKey: SigningPrivateKey) -> RequestSigner {
            RequestSigner(clientID: clientID, signingKey: signingKey)
        }

        /// The `Authorization` value for `request`, signed now.
        func authorization(for request: OutgoingRequest) throws(TransportError) -> String {
            guard let url = URL(string: request.url) else {
                throw TransportError(.invalidConfiguration, "\(request.url) is not a URL")
            }
            var path = url.path(percentEncoded: true)
            if path.isEmpty { path = "/" }
            return TSV1.authorization(
                for: .init(method: request.method.rawValue, path: path, query: url.query(percentEncoded: true) ?? ""),
                clientID: clientID,
                signingKey: signingKey
            )
        }
    }
}
