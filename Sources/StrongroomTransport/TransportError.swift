// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by the transport: the request did not complete as an HTTP exchange. Answers with any status
/// are not errors here; the SDK decides what a status means.
public struct TransportError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case invalidConfiguration, unreachable, timedOut, cancelled, untrustedServer, unavailable
            case responseTooLarge, clientCertificateRefused
        }

        private let kind: Kind

        /// The options or the URL are unusable (unreadable trust roots, `http://` with a custom trust).
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)
        /// The request did not reach the server or its answer did not arrive.
        public static let unreachable = Code(kind: .unreachable)
        /// The exchange did not finish within its timeout.
        public static let timedOut = Code(kind: .timedOut)
        /// The task was cancelled.
        public static let cancelled = Code(kind: .cancelled)
        /// The TLS server is not the one configured: its chain does not lead to a trusted root, or no certificate
        /// of its chain is pinned. Nothing was sent.
        public static let untrustedServer = Code(kind: .untrustedServer)
        /// The server kept answering 502, 503 or 504 until the retries ran out (``status`` holds the last).
        public static let unavailable = Code(kind: .unavailable)
        /// The answer was larger than the caller accepts.
        public static let responseTooLarge = Code(kind: .responseTooLarge)
        /// The server ended the TLS handshake over the client certificate: revoked, expired, from a CA it does not
        /// accept, or missing where one is required.
        public static let clientCertificateRefused = Code(kind: .clientCertificateRefused)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let context: ErrorContext
    /// The HTTP status, when the server answered (the last one, for ``Code/unavailable``).
    public var status: Int?

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }

    /// Creates an error carrying the HTTP status.
    public init(
        _ code: Code,
        _ message: String,
        status: Int?,
        underlying: (any Error & Sendable)? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.init(code, message, underlying: underlying, fileID: fileID, line: line)
        self.status = status
    }
}
