// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// How a client reaches its server: trust, timeouts and retries (`Client.TransportOptions` in the SDK).
public struct TransportOptions: Sendable, Hashable {
    /// Which TLS servers are accepted (system roots by default; custom roots and SPKI pins on request).
    public var serverTrust: ServerTrust
    /// The longest a JSON request may take, from connecting to the last byte of the answer.
    public var requestTimeout: Duration
    /// The longest a file upload or download may take.
    public var transferTimeout: Duration
    /// How often an idempotent request (GET, DELETE) is tried in all when the connection fails or the server
    /// answers 502, 503 or 504. Writes (POST, PUT, PATCH) are sent once.
    public var maximumAttempts: Int
    /// The wait before the first retry; it doubles for each further one, with jitter.
    public var retryBackoff: Duration
    /// The certificate presented over mutual TLS on every request, file transfers included; nil presents none.
    /// It is shown only to a server that passed ``serverTrust`` (chain, host name and pins).
    public var clientIdentity: ClientIdentity?
    /// Where file transfers stage their encrypted copies (E3DB needs an upload's size and checksum first, and a
    /// download is checked before it is decrypted); nil uses the system's temporary folder. Each copy is 0600 and
    /// removed on every path, including failure and cancellation.
    public var stagingDirectory: URL?
    /// The HTTP proxy every request goes through (`https://` in a `CONNECT` tunnel, the server verified end to
    /// end); nil connects directly.
    public var proxy: HTTPProxy?

    /// The defaults: system trust, 60 s per request, one hour per file transfer, three attempts 250 ms apart, no
    /// client certificate, the system's temporary folder, no proxy.
    public init(
        serverTrust: ServerTrust = .system,
        requestTimeout: Duration = .seconds(60),
        transferTimeout: Duration = .seconds(3600),
        maximumAttempts: Int = 3,
        retryBackoff: Duration = .milliseconds(250),
        clientIdentity: ClientIdentity? = nil,
        stagingDirectory: URL? = nil,
        proxy: HTTPProxy? = nil
    ) {
        self.serverTrust = serverTrust
        self.requestTimeout = requestTimeout
        self.transferTimeout = transferTimeout
        self.maximumAttempts = max(1, maximumAttempts)
        self.retryBackoff = retryBackoff
        self.clientIdentity = clientIdentity
        self.stagingDirectory = stagingDirectory
        self.proxy = proxy
    }
}
