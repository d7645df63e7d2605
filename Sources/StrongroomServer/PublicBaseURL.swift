// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import StrongroomCore
import Synchronization

/// The base of presigned file URLs, from configuration alone: `--public-url`, or on a loopback listener
/// `<scheme>://<host>:<bound port>` once the server is bound. The request's `Host` header is never used, so a
/// client cannot point another client's upload or download at a host of its choosing.
final class PublicBaseURL: Sendable {
    private let configured: String?
    private let scheme: String
    private let host: String
    private let boundPort = Mutex<Int?>(nil)

    /// - Throws: ``ServerError`` when `host` is not a loopback address and no `publicURL` is configured, or when
    ///   `publicURL` is not an http(s) URL with a host and without a query or fragment (every presigned URL is built
    ///   on it).
    init(publicURL: String?, scheme: String, host: String) throws {
        if publicURL == nil, !Self.isLoopback(host) {
            throw ServerError(
                .configuration,
                "--public-url is required when listening on \(host), a non-loopback address"
            )
        }
        if let publicURL {
            let url = URLComponents(string: publicURL)
            guard let url, ["http", "https"].contains(url.scheme?.lowercased() ?? ""), !(url.host ?? "").isEmpty,
                url.query == nil, url.fragment == nil, url.user == nil, url.password == nil,
                publicURL.utf8.count <= 2048
            else {
                // Not echoed when it may hold credentials.
                let shown = publicURL.contains("@") ? "" : " " + publicURL.prefix(200)
                throw ServerError(
                    .configuration,
                    "--public-url\(shown) is not an http(s) URL with a host and without credentials, a query or a "
                        + "fragment (such as https://vault.example.com); presigned file URLs are built on it"
                )
            }
        }
        self.configured = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.scheme = scheme
        self.host = host
    }

    /// Called once the listener is bound.
    func bound(port: Int) { boundPort.withLock { $0 = port } }

    /// The base URL, without a trailing slash.
    var value: String {
        get throws {
            if let configured { return configured }
            guard let port = boundPort.withLock({ $0 }) else {
                throw ServerError(.starting, "the server is still starting")
            }
            let name = host.contains(":") ? "[\(host)]" : host
            return "\(scheme)://\(name):\(port)"
        }
    }

    /// Whether `host` names the loopback interface (127.0.0.0/8, `::1` or `localhost`).
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
