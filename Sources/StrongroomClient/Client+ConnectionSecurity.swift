// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

extension Client {
    /// Opens one TLS connection to the server exactly as a request would (the same roots, pins and client
    /// identity), reports what it negotiated — TLS version, ALPN protocol, the server's chain — and closes it
    /// without sending a request.
    ///
    /// - Throws: ``ClientError/Code/untrustedServer`` when the server fails the trust (no pinned key, another CA),
    ///   ``ClientError/Code/invalidConfiguration`` for an API URL that is not `https://`,
    ///   ``ClientError/Code/transport`` when it cannot be reached.
    public func connectionSecurity() async throws(ClientError) -> ConnectionSecurity {
        do {
            return try await transport.http.connectionSecurity()
        } catch {
            throw ClientError(error)
        }
    }
}
