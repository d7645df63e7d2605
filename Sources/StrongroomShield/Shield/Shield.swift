// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
public import StrongroomKeychain
public import StrongroomWire
import Synchronization

/// The one long-lived integrity object an app creates at start-up and passes around (T.A.K's `tak`).
///
/// ```swift
/// let shield = Shield(keychain: keychain, server: client, context: IntegrityContext(protectedFiles: [keychainURL]))
/// let report = try await shield.start()       // registers on first launch, checks, checks in
/// if report.verdict == .compromised { refuseToWork() }
/// ```
///
/// The instance's Ed25519 key is generated in the keychain on first launch and never leaves it; the server binds
/// the instance to the E3DB client that registered it. Every check-in answers a fresh single-use challenge and is
/// signed with that key, so a forged or replayed report is refused.
public final class Shield: Sendable {
    /// Where the instance key and ID live.
    public let keychain: Keychain
    /// The server, or nil for local checks only.
    public let server: (any IntegrityServer)?
    /// What the checks need (secret files, manifest).
    public let context: IntegrityContext
    /// How findings are weighed.
    public let policy: GradingPolicy
    /// The checks that run (``Integrity/defaultChecks`` unless the app adds or removes some).
    public let checks: [any IntegrityCheck]
    private let last = Mutex<IntegrityReport?>(nil)

    /// A shield; with `hardens` (the default) the process is made non-dumpable at once.
    public init(
        keychain: Keychain,
        server: (any IntegrityServer)?,
        context: IntegrityContext = IntegrityContext(),
        policy: GradingPolicy = .default,
        checks: [any IntegrityCheck] = Integrity.defaultChecks,
        hardens: Bool = true
    ) {
        self.checks = checks
        self.keychain = keychain
        self.server = server
        self.context = context
        self.policy = policy
        if hardens { Hardening.disableCoreDumps() }
    }

    /// The newest report, if any check ran.
    public var lastReport: IntegrityReport? { last.withLock { $0 } }

    /// Checks the environment now, locally.
    @discardableResult
    public func check() -> IntegrityReport {
        record(Integrity.check(context, checks: checks, policy: policy))
    }

    /// What to do at every launch: register the instance on the first one, then check and check in.
    ///
    /// - Throws: ``ShieldError/Code/server`` when registration or check-in fails (the report is still in
    ///   ``lastReport``), ``ShieldError/Code/keyUnavailable`` when the keychain refuses.
    @discardableResult
    public func start() async throws(ShieldError) -> IntegrityReport {
        guard server != nil else { return check() }
        try await register()
        return try await checkIn().report
    }

    /// The instance's ID, when it was registered from this keychain.
    public var instanceID: String? {
        guard let server else { return nil }
        // None or unreadable: not registered; registering again then reports a keychain that cannot be written.
        return try? keychain.retrieve(Self.registrationQuery(server.integrityClientID), as: String.self)
    }

    /// ``instanceID``, read on the blocking executor (the keychain reads a file and may run its KDF).
    private func storedInstanceID(_ clientID: String) async -> String? {
        // None or unreadable: not registered (as ``instanceID`` answers).
        await BlockingExecutor.shared.run { [keychain] _ in
            try? keychain.retrieve(Self.registrationQuery(clientID), as: String.self)
        }
    }

    /// Registers the instance unless this keychain registered it already.
    public func register() async throws(ShieldError) {
        let server = try requireServer()
        let clientID = server.integrityClientID
        if await storedInstanceID(clientID) != nil { return }
        let key = try await instanceKey(clientID)
        let instance = UUID().uuidString.lowercased()
        let request = IntegrityInstanceRequest(
            instanceID: instance,
            publicKey: key.publicKey.base64URLEncoded,
            name: ProcessInfo.processInfo.hostName
        )
        do {
            _ = try await server.registerIntegrityInstance(request)
            try await BlockingExecutor.shared.run { [keychain] _ throws(KeychainError) in
                try keychain.store(instance, query: Self.registrationQuery(clientID))
            }
        } catch {
            throw ShieldError(.server, "the instance could not be registered", underlying: error)
        }
    }

    /// Checks the environment (with the server's time from a fresh challenge) and checks the report in, signed.
    ///
    /// - Throws: ``ShieldError/Code/server`` (not registered, refused, unreachable).
    public func checkIn() async throws(ShieldError) -> (report: IntegrityReport, answer: IntegrityCheckInResponse) {
        let server = try requireServer()
        let clientID = server.integrityClientID
        guard let instance = await storedInstanceID(clientID) else {
            throw ShieldError(.server, "the instance is not registered")
        }
        let key = try await instanceKey(clientID)
        do {
            let challenge = try await server.integrityChallenge()
            var context = self.context
            context.serverTime = Date(timeIntervalSince1970: TimeInterval(challenge.serverTime))
            context.localTime = Date()
            let report = record(Integrity.check(context, checks: checks, policy: policy))
            let body = Array(report.jsonRepresentation())
            let signed = IntegrityCheckInRequest.signedBytes(
                clientID: clientID,
                instanceID: instance,
                nonce: challenge.nonce,
                report: body
            )
            let answer = try await server.checkInIntegrityReport(
                IntegrityCheckInRequest(
                    instanceID: instance,
                    nonce: challenge.nonce,
                    report: Base64URL.encode(body),
                    signature: Base64URL.encode(key.signature(for: signed))
                )
            )
            return (report, answer)
        } catch {
            throw ShieldError(.server, "the integrity check-in failed", underlying: error)
        }
    }

    private func requireServer() throws(ShieldError) -> any IntegrityServer {
        guard let server else { throw ShieldError(.invalidParameters, "this shield has no server") }
        return server
    }

    private func record(_ report: IntegrityReport) -> IntegrityReport {
        last.withLock { $0 = report }
        return report
    }

    /// The keychain item of the instance key for `clientID`.
    static func keyQuery(_ clientID: String) -> ItemQuery<SecKey> {
        .key(for: "strongroom.shield.instance.\(clientID)")
    }

    /// The keychain item recording the registered instance ID for `clientID`.
    static func registrationQuery(_ clientID: String) -> ItemQuery<GenericPassword> {
        .credential(for: clientID, service: "strongroom.shield.instance")
    }

    /// The instance key, generated in the keychain the first time (on the blocking executor: the keychain does file
    /// I/O and may run its KDF).
    private func instanceKey(_ clientID: String) async throws(ShieldError) -> SigningPrivateKey {
        do {
            return try await BlockingExecutor.shared.run { [keychain] _ throws(KeychainError) -> SigningPrivateKey in
                if let key: SigningPrivateKey = try keychain.retrieve(Self.keyQuery(clientID)) { return key }
                let key = SigningPrivateKey()
                try keychain.store(key, query: Self.keyQuery(clientID))
                return key
            }
        } catch {
            throw ShieldError(.keyUnavailable, "the instance key is unavailable: \(error.message)", underlying: error)
        }
    }
}
