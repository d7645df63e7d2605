// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

/// An HTTP proxy a ``SecureChannel`` reaches its servers through.
///
/// `https://` requests open a `CONNECT` tunnel to the server and run TLS inside it, end to end: the proxy sees the
/// server's name and port and nothing else, and the server is verified (roots, host name, pins) exactly as on a
/// direct connection, before a client certificate or a byte of the request is sent. `http://` requests are sent to
/// the proxy in absolute form, as any HTTP client does.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's host name or address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Sent as `Proxy-Authorization: Basic …` to a proxy that wants them; nil sends none.
    public var credentials: Credentials?

    /// A user name and password for the proxy (HTTP Basic). Printed, logged or dumped, it shows the user name only.
    public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The user name (no colon).
        public var username: String
        /// The password.
        public var password: String

        /// Credentials for the proxy.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        public var description: String { "\(username):<redacted>" }
        public var debugDescription: String { description }
        public var customMirror: Mirror { Mirror(self, children: ["username": username]) }
    }

    /// A proxy at `host:port`.
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` for an empty host, a port outside 1…65535, a user name
    ///   with a colon, or any field holding a control character (it would end up in a request head).
    public init(host: String, port: Int, credentials: Credentials? = nil) throws(TransportError) {
        guard !host.isEmpty, host.utf8.count <= 255, !Self.hasControlOrSpace(host) else {
            throw TransportError(.invalidConfiguration, "the proxy's host name is empty or not a host name")
        }
        guard (1...65535).contains(port) else {
            throw TransportError(.invalidConfiguration, "the proxy's port \(port) is not between 1 and 65535")
        }
        if let credentials {
            guard !credentials.username.contains(":"), !Self.hasControl(credentials.username),
                !Self.hasControl(credentials.password),
                credentials.username.utf8.count + credentials.password.utf8.count <= 4096
            else {
                throw TransportError(
                    .invalidConfiguration,
                    "the proxy's user name or password has a colon (user name) or a control character, or is too long"
                )
            }
        }
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// A proxy from a URL such as `HTTPS_PROXY` holds: `http://[user:password@]host[:port]` (port 80 by
    /// default; user and password percent-decoded).
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` for another scheme, a path, or a field
    ///   ``init(host:port:credentials:)`` refuses.
    public init(url: String) throws(TransportError) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "http",
            let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
            components.query == nil, components.fragment == nil
        else {
            throw TransportError(.invalidConfiguration, "the proxy must be given as http://[user:password@]host[:port]")
        }
        var credentials: Credentials?
        if let user = components.user {
            credentials = Credentials(username: user, password: components.password ?? "")
        }
        try self.init(host: host, port: components.port ?? 80, credentials: credentials)
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The `Proxy-Authorization` value, when there are credentials.
    var authorization: String? {
        credentials.map { "Basic " + Data("\($0.username):\($0.password)".utf8).base64EncodedString() }
    }

    private static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    private static func hasControlOrSpace(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || $0 == "/" || $0 == "@" }
    }
}
