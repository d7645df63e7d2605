public import StrongroomClient
// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import StrongroomShield
public import StrongroomWire

/// Integrity check-in through this client: a `Shield` made with `server: client` registers and reports as it.
extension Client: IntegrityServer {
    public var integrityClientID: String { ClientID(configuration.clientID).description }

    public func registerIntegrityInstance(
        _ request: IntegrityInstanceRequest
    ) async throws -> IntegrityInstanceResponse {
        try await authenticated(
            .POST,
            E3DBPath.integrityInstances.render(),
            body: request,
            success: [200, 201],
            as: IntegrityInstanceResponse.self
        )
    }

    public func integrityChallenge() async throws -> IntegrityChallengeResponse {
        try await authenticated(
            .POST,
            E3DBPath.integrityChallenge.render(),
            success: [200],
            as: IntegrityChallengeResponse.self
        )
    }

    public func checkInIntegrityReport(_ request: IntegrityCheckInRequest) async throws -> IntegrityCheckInResponse {
        try await authenticated(
            .POST,
            E3DBPath.integrityReports.render(),
            body: request,
            success: [201],
            as: IntegrityCheckInResponse.self
        )
    }
}
