// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomWire

/// Where a ``Shield`` registers its instance and checks in its reports: the Strongroom server, through the SDK's
/// `Client` (which conforms). The calls are authenticated as the E3DB client, so an instance is bound to it.
public protocol IntegrityServer: Sendable {
    /// The E3DB client's ID, lowercase, as the server knows it.
    var integrityClientID: String { get }
    /// `POST /v1/integrity/instances`.
    func registerIntegrityInstance(_ request: IntegrityInstanceRequest) async throws -> IntegrityInstanceResponse
    /// `POST /v1/integrity/challenge`.
    func integrityChallenge() async throws -> IntegrityChallengeResponse
    /// `POST /v1/integrity/reports`.
    func checkInIntegrityReport(_ request: IntegrityCheckInRequest) async throws -> IntegrityCheckInResponse
}
