// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import StrongroomCore

/// Turns a failed exchange's low-level error (NIO, BoringSSL, AsyncHTTPClient) into words a user can act on, with
/// the code that says who must act. The low-level error stays as the ``TransportError``'s `underlying`, for
/// `--verbose`; the message never carries it (it names build folders and library types).
enum TransportFailure {
    /// What went wrong talking to `url`, having presented a client certificate or not.
    static func describe(_ error: any Error, url: String, presentedCertificate: Bool = false) -> TransportError {
        let place = Self.place(of: url)
        let text = String(describing: error) + " " + String(reflecting: error)
        if Self.mentions(text, ["CERTIFICATE_REVOKED"]) {
            return TransportError(
                .clientCertificateRefused,
                "the server refused the TLS handshake: your client certificate is revoked",
                underlying: error
            )
        }
        if Self.mentions(text, ["CERTIFICATE_EXPIRED"]) {
            return TransportError(
                .clientCertificateRefused,
                "the server refused the TLS handshake: your client certificate has expired (renew or enroll again)",
                underlying: error
            )
        }
        if Self.mentions(
            text,
            [
                "ALERT_CERTIFICATE_UNKNOWN", "ALERT_BAD_CERTIFICATE", "ALERT_UNKNOWN_CA", "CERTIFICATE_REQUIRED",
                "ALERT_ACCESS_DENIED", "ALERT_UNSUPPORTED_CERTIFICATE",
            ]
        ) {
            return TransportError(
                .clientCertificateRefused,
                "the server refused the TLS handshake: your client certificate was not accepted "
                    + "(revoked, expired, from another CA, or none given where one is required)",
                underlying: error
            )
        }
        if Self.mentions(text, ["WRONG_VERSION_NUMBER", "HTTP_REQUEST"]) {
            return TransportError(
                .invalidConfiguration,
                "\(place) does not speak TLS: use http:// (or start the server with TLS)",
                underlying: error
            )
        }
        if Self.mentions(text, ["Connection refused", "errno: 111", "connectionRefused"]) {
            return TransportError(
                .unreachable,
                "connection refused at \(place): is the server running, on this address and port?",
                underlying: error
            )
        }
        let connectTimedOut = if case .connectTimeout = error as? ChannelError { true } else { false }
        if connectTimedOut || Self.mentions(text, ["connectTimeout", "Connection timed out", "errno: 110"]) {
            return TransportError(
                .unreachable,
                "no answer from \(place) while connecting: is the address right, or a firewall in the way?",
                underlying: error
            )
        }
        if Self.mentions(text, ["No such host", "Name or service not known", "getaddrinfo", "UnknownHost"]) {
            return TransportError(.unreachable, "the host of \(place) could not be found", underlying: error)
        }
        if Self.mentions(text, ["NIOHTTP2Errors", "ProtocolViolation", "GoAway", "HTTP2Error"]) {
            return TransportError(
                .unreachable,
                "the HTTP/2 connection to \(place) broke off: the server (or a proxy on the way) did not keep to the "
                    + "protocol",
                underlying: error
            )
        }
        if error is ChannelError || error is HTTPParserError
            || Self.mentions(
                text,
                [
                    "invalidEOFState", "uncleanShutdown", "remoteConnectionClosed", "closed channel", "End of file",
                    "Connection reset", "errno: 104",
                ]
            )
        {
            // Under TLS 1.3 a server refuses a client certificate after the client's handshake is done; when the
            // request's write meets the closed connection first, the alert saying why can be lost with it.
            if presentedCertificate, url.hasPrefix("https://") {
                return TransportError(
                    .clientCertificateRefused,
                    "\(place) closed the TLS connection without answering: it most likely refused your client "
                        + "certificate (revoked, expired, or from another CA)",
                    underlying: error
                )
            }
            let hint =
                url.hasPrefix("http://")
                ? " (if it serves TLS, use https://)" : " (does it require a client certificate?)"
            return TransportError(
                .unreachable,
                "\(place) closed the connection without an HTTP answer\(hint)",
                underlying: error
            )
        }
        if error is NIOSSLError || error is BoringSSLError || (presentedCertificate && url.hasPrefix("https://")) {
            let hint = presentedCertificate ? " (was your client certificate refused: revoked or expired?)" : ""
            return TransportError(.unreachable, "the TLS connection to \(place) failed\(hint)", underlying: error)
        }
        return TransportError(.unreachable, "the server at \(place) could not be reached", underlying: error)
    }

    /// `host:port` of `url` (the scheme's default port when it names none), or the URL itself.
    static func place(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return url }
        let port = components.port ?? (components.scheme == "https" ? 443 : 80)
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func mentions(_ text: String, _ needles: [String]) -> Bool {
        needles.contains { text.contains($0) }
    }
}
