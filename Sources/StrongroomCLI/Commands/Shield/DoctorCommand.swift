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
        /// False for a check that could not be made: printed "not checked", never "ok".
        var checked = true
    }

    func run() async throws {
        var lines: [Line] = []
        do {
            let configuration = try await profile.configuration()
            let client = try Client(
                configuration: configuration,
                options: try await profile.transportOptions(server: configuration.apiURL)
            )
            let keychain = profile.keychain
            let integrity = integrity
            let report = await Doctor(
                client: client,
                keychain: {
                    do {
                        _ = try await keychain.open().items()
                    } catch {
                        throw KeychainFailure(description: CLIError.from(error).description)
                    }
                    return "unlocked: \(keychain.fileURL.path)"
                },
                integrity: { serverTime in
                    (try integrity.context(keychain: keychain.fileURL, serverTime: serverTime), try integrity.policy())
                }
            ).run()
            lines = report.checks.map {
                Line(check: $0.aspect.rawValue, ok: $0.passed, detail: $0.detail, checked: $0.isChecked)
            }
        } catch {
            lines.append(Line(check: "profile", ok: false, detail: CLIError.from(error).description))
            lines += await Self.localChecks(keychain: profile.keychain, integrity: integrity)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(lines), as: UTF8.self))
        } else {
            for line in lines {
                let (mark, detail) =
                    line.checked ? (line.ok ? "ok  " : "FAIL", line.detail) : ("--  ", "not checked: " + line.detail)
                print("\(mark) \(line.check): \(detail)")
            }
        }
        if lines.contains(where: { !$0.ok }) { throw ExitCode(1) }
    }

    /// The keychain and integrity checks alone, when the profile cannot make a client.
    static func localChecks(keychain: KeychainOptions, integrity: IntegrityOptions) async -> [Line] {
        var lines: [Line] = []
        do {
            _ = try await keychain.open().items()
            lines.append(Line(check: "keychain", ok: true, detail: "unlocked: \(keychain.fileURL.path)"))
        } catch {
            lines.append(Line(check: "keychain", ok: false, detail: CLIError.from(error).description))
        }
        do {
            let report = Integrity.check(
                try integrity.context(keychain: keychain.fileURL),
                policy: try integrity.policy()
            )
            let findings = report.findings.filter { $0.severity != .informational }.map(\.kind.rawValue)
            lines.append(
                Line(
                    check: "integrity",
                    ok: report.verdict == .clean,
                    detail: report.verdict.rawValue + (findings.isEmpty ? "" : ": " + findings.joined(separator: ", "))
                )
            )
        } catch {
            lines.append(Line(check: "integrity", ok: false, detail: CLIError.from(error).description))
        }
        return lines
    }

    /// A keychain that did not open, in the CLI's words.
    struct KeychainFailure: Error, CustomStringConvertible {
        var description: String
    }
}
