// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import NIOCore
import StrongroomCore
import StrongroomWire

/// The client-credentials bearer token: fetched on first use, renewed a minute before it expires, and refreshed
/// once for all concurrent callers (they await the same task).
actor TokenProvider {
    private let transport: Transport
    private let apiKeyID: String
    private let apiSecret: SecureBytes
    private var current: (token: String, renewAt: Date)?
    private var refreshing: Task<(String, Date), any Error>?

    init(transport: Transport, apiKeyID: String, apiSecret: SecureBytes) {
        self.transport = transport
        self.apiKeyID = apiKeyID
        self.apiSecret = apiSecret
    }

    /// A valid token.
    func token() async throws(ClientError) -> String {
        if let current, current.renewAt > Date() { return current.token }
        let task: Task<(String, Date), any Error>
        if let refreshing {
            task = refreshing
        } else {
            let transport = self.transport
            let credentials = Data("\(apiKeyID):".utf8) + apiSecret.withUnsafeBytes { Data($0) }
            task = Task { try await Self.fetch(transport, credentials: credentials) }
            refreshing = task
        }
        defer { refreshing = nil }
        do {
            let fresh = try await task.value
            current = fresh
            return fresh.0
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.transport, "the token request failed", underlying: error)
        }
    }

    /// Forgets the token (after a 401), so that the next call fetches a new one.
    func invalidate() { current = nil }

    private static func fetch(_ transport: Transport, credentials: Data) async throws -> (String, Date) {
        let (status, body) = try await transport.send(
            .POST,
            E3DBPath.token.render(),
            headers: [
                ("Authorization", "Basic \(credentials.base64EncodedString())"),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            body: nil,
            form: "grant_type=client_credentials"
        )
        guard status == 200 else { throw ClientError.status(status, message: "the server refused the API credentials") }
        let response: TokenResponse
        do {
            response = try JSONDecoder().decode(TokenResponse.self, from: Data(body.readableBytesView))
        } catch {
            throw ClientError(.invalidResponse, "the token answer is not the expected JSON", underlying: error)
        }
        let lifetime = max(0, Double(response.expiresIn) - 60)
        return (response.accessToken, Date().addingTimeInterval(lifetime))
    }
}
