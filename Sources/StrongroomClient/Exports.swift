// Strongroom — SPDX-License-Identifier: Apache-2.0

// The transport's public types (`ServerTrust`, `PublicKeyPin`, `TransportOptions`) are part of the SDK's API:
// `import StrongroomClient` is enough to configure a client.
@_exported public import StrongroomTransport

extension Client {
    /// How a client reaches its server: trust, timeouts and retries (`StrongroomTransport.TransportOptions`).
    public typealias TransportOptions = StrongroomTransport.TransportOptions
}
