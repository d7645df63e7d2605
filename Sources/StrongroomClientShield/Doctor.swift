// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomClient
import StrongroomCore
public import StrongroomShield
import StrongroomTransport
import StrongroomWire
import X509

/// T.A.K's health check as a library call: the checks `strongroom doctor` runs — reachability, TLS and pins,
/// registration, clock, client certificate, keychain, integrity — as a typed report an app can show or act on.
///
/// Each check reports what it actually verified, and a check that could not run says why instead of passing:
///
/// ```swift
/// let report = await Doctor(client: client, keychain: { _ = try keychain.items(); return "unlocked" }).run()
/// for check in report.checks where !check.passed { print(check.aspect, check.detail) }
/// ```
public struct Doctor: Sendable {
    /// The client whose server, credentials and certificate are checked.
    public var client: Client
    /// The largest accepted difference between this device's clock and the server's.
    public var maximumClockSkew: TimeInterval
    /// Proves the app's keychain opens and reads, returning what to report (nil: no keychain in use).
    public var keychain: (@Sendable () async throws -> String)?
    /// The integrity check's context and policy, given the server's time when it was read (nil: not checked).
    public var integrity: (@Sendable (_ serverTime: Date?) throws -> (IntegrityContext, GradingPolicy))?

    /// A check of `client`, with the keychain and integrity checks the app supplies.
    public init(
        client: Client,
        maximumClockSkew: TimeInterval = 120,
        keychain: (@Sendable () async throws -> String)? = nil,
        integrity: (@Sendable (_ serverTime: Date?) throws -> (IntegrityContext, GradingPolicy))? = nil
    ) {
        self.client = client
        self.maximumClockSkew = maximumClockSkew
        self.keychain = keychain
        self.integrity = integrity
    }

    /// Runs every check; it never throws: a failure is a failed check with its reason.
    public func run() async -> HealthReport {
        var checks: [HealthCheck] = []
        func add(_ aspect: HealthCheck.Aspect, _ passed: Bool, _ detail: String) {
            checks.append(HealthCheck(aspect: aspect, passed: passed, detail: detail))
        }
        func notChecked(_ aspect: HealthCheck.Aspect, passed: Bool = true, _ detail: String) {
            checks.append(HealthCheck(aspect: aspect, passed: passed, detail: detail, isChecked: false))
        }
        let options = client.transportOptions
        let url = client.configuration.apiURL.absoluteString
        // One authenticated request first: whether the server answers, accepts these credentials and (over mutual
        // TLS) this certificate.
        var refusal: ClientError?
        var registered: HealthCheck
        do {
            let me = try await client.clientInfo(of: client.configuration.clientID)
            registered = HealthCheck(
                aspect: .registered,
                passed: true,
                detail: "client \(ClientID(me.clientID).description)"
            )
        } catch {
            refusal = error
            registered = HealthCheck(aspect: .registered, passed: false, detail: error.message)
        }
        let unreached = refusal.map(Self.isUnreached) ?? false
        let certificateRefused = refusal.map(Self.refusedCertificate) ?? false
        if client.configuration.apiURL.scheme == "https" {
            do {
                let security = try await client.connectionSecurity()
                add(.server, !unreached, "\(security.host):\(security.port) \(security.tlsVersion)")
                let pinned = !options.serverTrust.pins.isEmpty || !options.serverTrust.hostPins.isEmpty
                add(.pins, true, pinned ? "the server's key matches the configured pins" : "no pins configured")
            } catch  where certificateRefused {
                // The request above got as far as the server refusing the certificate: the server answered TLS.
                add(.server, true, "\(url) answered TLS, then refused the client certificate")
                add(.pins, true, "checked by the request above (a failed pin is not a refused certificate)")
            } catch {
                add(.server, false, error.message)
                add(.pins, error.code != .untrustedServer, "the server's chain or key was not checked or failed")
            }
        } else if let refusal, unreached {
            add(.server, false, refusal.message)
            add(.pins, true, "plain HTTP: nothing to pin")
        } else {
            add(.server, true, "\(url) answered over plain HTTP (no TLS: use https:// beyond this machine)")
            add(.pins, true, "plain HTTP: nothing to pin")
        }
        checks.append(registered)
        var serverTime: Date?
        if !unreached && !certificateRefused {
            do {
                let challenge = try await client.integrityChallenge()
                let time = Date(timeIntervalSince1970: TimeInterval(challenge.serverTime))
                serverTime = time
                let skew = Date().timeIntervalSince(time)  // floating point: a hostile value cannot overflow it
                add(.clock, abs(skew) <= maximumClockSkew, String(format: "%.0f s from the server's clock", skew))
            } catch let error as ClientError where error.code == .notFound {
                notChecked(.clock, "the server does not tell its time (not a Strongroom server?)")
            } catch let error as ClientError {
                add(.clock, false, "the server's time could not be read: \(error.message)")
            } catch {
                add(.clock, false, "the server's time could not be read: \(error)")
            }
        } else {
            let why = unreached ? "the server was not reached" : "the server refused the client certificate"
            notChecked(.clock, passed: false, why)
        }
        if let identity = options.clientIdentity {
            let certificate = CertificateHealth(identity.certificate, now: Date())
            if certificateRefused {
                add(.certificate, false, "the server refused it: revoked, expired or from another CA")
            } else {
                let accepted = refusal == nil ? "; the server accepted it" : ""
                add(.certificate, certificate.isHealthy, certificate.detail + accepted)
            }
        } else {
            add(.certificate, true, "no client certificate configured")
        }
        if let keychain {
            do {
                add(.keychain, true, try await keychain())
            } catch {
                add(.keychain, false, Self.describe(error))
            }
        }
        if let integrity {
            do {
                let (context, policy) = try integrity(serverTime)
                let report = Integrity.check(context, policy: policy)
                let findings = report.findings.filter { $0.severity != .informational }.map(\.kind.rawValue)
                add(
                    .integrity,
                    report.verdict == .clean,
                    report.verdict.rawValue + (findings.isEmpty ? "" : ": " + findings.joined(separator: ", "))
                )
            } catch {
                add(.integrity, false, Self.describe(error))
            }
        }
        return HealthReport(checks: checks)
    }

    /// Whether `error` means the server was not reached at all (rather than reached and refusing).
    static func isUnreached(_ error: ClientError) -> Bool {
        [.transport, .timedOut, .untrustedServer, .invalidConfiguration].contains(error.code)
    }

    /// Whether the TLS handshake refused the client certificate.
    static func refusedCertificate(_ error: ClientError) -> Bool {
        (error.underlying as? TransportError)?.code == .clientCertificateRefused
    }

    /// A failure in the user's words: a Strongroom error's message and code, else the error's description.
    static func describe(_ error: any Error) -> String {
        if let error = error as? any StrongroomError { return "\(error.message) [\(error.code)]" }
        return String(describing: error)
    }
}

/// One aspect of a ``Doctor`` run: whether it passed and what was verified (or why it failed or was not checked).
public struct HealthCheck: Sendable, Hashable, Codable {
    /// What is checked.
    public enum Aspect: String, Sendable, Hashable, Codable, CaseIterable {
        /// The server answers (TLS version, or plain HTTP).
        case server
        /// The server's key matches the configured pins (or none are configured).
        case pins
        /// The server accepts this client's credentials.
        case registered
        /// This device's clock is within the allowed skew of the server's.
        case clock
        /// The client certificate is valid, not due for renewal, and accepted.
        case certificate
        /// The app's keychain opens.
        case keychain
        /// The integrity verdict of this process and its files.
        case integrity
    }

    /// What is checked.
    public var aspect: Aspect
    /// Whether it passed (a check that could not be made has not failed, but see ``isChecked``).
    public var passed: Bool
    /// What was verified, or why it failed or could not be checked.
    public var detail: String
    /// Whether it could be made at all: false for a check that had nothing to work on (a server that does not tell
    /// its time, a server never reached). Shown as "not checked", never as "ok".
    public var isChecked: Bool

    /// A check and its outcome.
    public init(aspect: Aspect, passed: Bool, detail: String, isChecked: Bool = true) {
        (self.aspect, self.passed, self.detail, self.isChecked) = (aspect, passed, detail, isChecked)
    }

    enum CodingKeys: String, CodingKey {
        case aspect, passed, detail
        case isChecked = "checked"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        aspect = try container.decode(Aspect.self, forKey: .aspect)
        passed = try container.decode(Bool.self, forKey: .passed)
        detail = try container.decode(String.self, forKey: .detail)
        isChecked = try container.decodeIfPresent(Bool.self, forKey: .isChecked) ?? true
    }
}

/// The result of a ``Doctor`` run, in the order the checks ran.
public struct HealthReport: Sendable, Hashable, Codable {
    /// Every check.
    public var checks: [HealthCheck]

    /// Whether every check passed.
    public var isHealthy: Bool { checks.allSatisfy(\.passed) }

    /// The check of `aspect`, if it ran.
    public subscript(aspect: HealthCheck.Aspect) -> HealthCheck? { checks.first { $0.aspect == aspect } }
}

/// How much life a client certificate has left: healthy while valid and more than a fifth of its validity remains
/// (a 24-hour certificate is due for renewal in its last 4.8 hours).
struct CertificateHealth {
    var isHealthy: Bool
    var detail: String

    init(_ certificate: Certificate, now: Date) {
        let total = certificate.notValidAfter.timeIntervalSince(certificate.notValidBefore)
        let left = certificate.notValidAfter.timeIntervalSince(now)
        let hours = Int(left / 3600)
        if now < certificate.notValidBefore {
            (isHealthy, detail) = (false, "not valid yet (check this machine's clock)")
        } else if left <= 0 {
            (isHealthy, detail) = (false, "expired \(-hours) h ago: renew it or enroll again")
        } else if total > 0, left < total / 5 {
            (isHealthy, detail) = (false, "expires in \(hours) h: renew it (strongroom pki renew)")
        } else {
            (isHealthy, detail) = (true, "valid for \(hours) h more")
        }
    }
}
