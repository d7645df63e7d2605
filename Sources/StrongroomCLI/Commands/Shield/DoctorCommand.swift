// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomClientShield
import StrongroomCore
import StrongroomKeychain
import StrongroomShield
import StrongroomWire
import X509

/// `strongroom doctor`: T.A.K's health check — one line per aspect, non-zero exit when something is wrong.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check server, registration, clock, certificate, pins, keychain and integrity (exit 1 if any fails)."
    )
    @OptionGroup var profile: ProfileOptions
    @OptionGroup var integrity: IntegrityOptions
    @Flag(help: "Print the results as JSON.") var json = false

    /// One aspect's result.
    struct Line: Codable {
        var check: String
        var ok: Bool
        var detail: String
    }

    func run() async throws {
        var lines: [Line] = []
        func add(_ check: String, _ ok: Bool, _ detail: String) {
            lines.append(Line(check: check, ok: ok, detail: detail))
        }

        var serverTime: Date?
        do {
            let options = try await profile.transportOptions()
            let client = try Client(configuration: try await profile.configuration(), options: options)
            let url = client.configuration.apiURL.absoluteString
            // One authenticated request first: whether the server answers, accepts these credentials and (over
            // mutual TLS) this certificate. Every line below reports what it actually checked.
            var refusal: ClientError?
            var registered: Line
            do {
                let me = try await client.clientInfo(of: client.configuration.clientID)
                registered = Line(check: "registered", ok: true, detail: "client \(ClientID(me.clientID).description)")
            } catch {
                refusal = error
                registered = Line(check: "registered", ok: false, detail: error.message)
            }
            let unreached = refusal.map(Self.isUnreached) ?? false
            let certificateRefused = refusal.map(Self.refusedCertificate) ?? false
            if client.configuration.apiURL.scheme == "https" {
                do {
                    let security = try await client.connectionSecurity()
                    add("server", !unreached, "\(security.host):\(security.port) \(security.tlsVersion)")
                    let pinned = !options.serverTrust.pins.isEmpty || !options.serverTrust.hostPins.isEmpty
                    add("pins", true, pinned ? "the server's key matches the configured pins" : "no pins configured")
                } catch  where certificateRefused {
                    // The request above got as far as the server refusing the certificate: the server answered TLS.
                    add("server", true, "\(url) answered TLS, then refused the client certificate")
                    add("pins", true, "checked by the request above (a failed pin is not a refused certificate)")
                } catch {
                    add("server", false, error.message)
                    add("pins", error.code != .untrustedServer, "the server's chain or key was not checked or failed")
                }
            } else if let refusal, unreached {
                add("server", false, refusal.message)
                add("pins", true, "plain HTTP: nothing to pin")
            } else {
                add("server", true, "\(url) answered over plain HTTP (no TLS: use https:// beyond this machine)")
                add("pins", true, "plain HTTP: nothing to pin")
            }
            lines.append(registered)
            if !unreached && !certificateRefused {
                do {
                    let challenge = try await client.integrityChallenge()
                    let time = Date(timeIntervalSince1970: TimeInterval(challenge.serverTime))
                    serverTime = time
                    let skew = Date().timeIntervalSince(time)  // floating point: a hostile value cannot overflow it
                    add("clock", abs(skew) <= 120, String(format: "%.0f s from the server's clock", skew))
                } catch let error as ClientError where error.code == .notFound {
                    add("clock", true, "the server does not tell its time (not a Strongroom server?)")
                } catch let error as ClientError {
                    add("clock", false, "the server's time could not be read: \(error.message)")
                } catch {
                    add("clock", false, "the server's time could not be read: \(error)")
                }
            } else {
                let why = unreached ? "the server was not reached" : "the server refused the client certificate"
                add("clock", false, "not checked: \(why)")
            }
            if let identity = options.clientIdentity {
                let certificate = CertificateHealth(identity.certificate, now: Date())
                if certificateRefused {
                    add("certificate", false, "the server refused it: revoked, expired or from another CA")
                } else {
                    let accepted = refusal == nil ? "; the server accepted it" : ""
                    add("certificate", certificate.isHealthy, certificate.detail + accepted)
                }
            } else {
                add("certificate", true, "no client certificate configured")
            }
        } catch {
            add("profile", false, CLIError.from(error).description)
        }
        do {
            _ = try await profile.keychain.open().items()
            add("keychain", true, "unlocked: \(profile.keychain.fileURL.path)")
        } catch {
            add("keychain", false, CLIError.from(error).description)
        }
        do {
            let report = Integrity.check(
                try integrity.context(keychain: profile.keychain.fileURL, serverTime: serverTime),
                policy: try integrity.policy()
            )
            let findings = report.findings.filter { $0.severity != .informational }.map(\.kind.rawValue)
            add(
                "integrity",
                report.verdict == .clean,
                report.verdict.rawValue + (findings.isEmpty ? "" : ": " + findings.joined(separator: ", "))
            )
        } catch {
            add("integrity", false, CLIError.from(error).description)
        }

        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(lines), as: UTF8.self))
        } else {
            for line in lines { print("\(line.ok ? "ok  " : "FAIL") \(line.check): \(line.detail)") }
        }
        if lines.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }

    /// Whether `error` means the server was not reached at all (rather than reached and refusing).
    static func isUnreached(_ error: ClientError) -> Bool {
        [.transport, .timedOut, .untrustedServer, .invalidConfiguration].contains(error.code)
    }

    /// Whether the TLS handshake refused the client certificate.
    static func refusedCertificate(_ error: ClientError) -> Bool {
        (error.underlying as? TransportError)?.code == .clientCertificateRefused
    }
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
