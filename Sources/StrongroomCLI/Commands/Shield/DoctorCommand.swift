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
            let options = try profile.transportOptions()
            let client = try Client(configuration: try profile.configuration(), options: options)
            if client.configuration.apiURL.scheme == "https" {
                do {
                    let security = try await client.connectionSecurity()
                    add("server", true, "\(security.host):\(security.port) \(security.tlsVersion)")
                    let pinned = !options.serverTrust.pins.isEmpty || !options.serverTrust.hostPins.isEmpty
                    add("pins", true, pinned ? "the server's key matches the configured pins" : "no pins configured")
                } catch {
                    add("server", false, error.message)
                    add("pins", error.code != .untrustedServer, "the server's chain or key was not checked or failed")
                }
            } else {
                add("server", true, "\(client.configuration.apiURL.absoluteString) over plain HTTP (no TLS)")
                add("pins", true, "no TLS, nothing to pin")
            }
            do {
                let me = try await client.clientInfo(of: client.configuration.clientID)
                add("registered", true, "client \(ClientID(me.clientID).description)")
            } catch {
                add("registered", false, error.message)
            }
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
            if let identity = options.clientIdentity {
                let left = identity.certificate.notValidAfter.timeIntervalSinceNow
                add("certificate", left > 86_400, "expires in \(Int(left / 3600)) h")
            } else {
                add("certificate", true, "no client certificate configured")
            }
        } catch {
            add("profile", false, CLIError.from(error).description)
        }
        do {
            _ = try profile.keychain.open().items()
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
}
