// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomShield
import StrongroomWire

/// `strongroom integrity`: the environment-integrity report, and the signed manifest it checks executables against.
struct IntegrityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "integrity",
        abstract: "Check this environment's integrity (exit 0 clean, 20 suspicious, 21 compromised).",
        subcommands: [Check.self, CheckIn.self, Manifest.self, ManifestKey.self],
        defaultSubcommand: Check.self
    )

    /// The exit status of a verdict, so a script can refuse to go on.
    static func exitStatus(_ verdict: IntegrityVerdict) -> Int32 {
        switch verdict {
        case .clean: 0
        case .suspicious: 20
        case .compromised: 21
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run every check and print the graded report (exit 0 clean, 20 suspicious, 21 compromised)."
        )
        @OptionGroup var options: IntegrityOptions
        @Option(help: "The keychain file to check (default: the standard one).") var keychainFile: String?
        @Flag(help: "Print the report as JSON.") var json = false
        @Flag(help: "Mark this process non-dumpable before checking (no core file, no same-user attach).")
        var harden = false

        func run() async throws {
            if harden { Hardening.disableCoreDumps() }
            let keychain = keychainFile.map { URL(fileURLWithPath: $0) } ?? Keychain.defaultURL
            let report = Integrity.check(try options.context(keychain: keychain), policy: try options.policy())
            if json {
                print(String(decoding: report.jsonRepresentation(), as: UTF8.self))
            } else {
                IntegrityCommand.printReport(report)
            }
            let status = IntegrityCommand.exitStatus(report.verdict)
            if status != 0 { throw ExitCode(status) }
        }
    }

    /// The report for a person: the verdict, then one line per finding with its evidence.
    static func printReport(_ report: IntegrityReport) {
        print(
            "integrity: \(report.verdict.rawValue) (\(report.checks.count) checks, \(report.durationMicroseconds) µs)"
        )
        for finding in report.findings {
            print("  \(finding.severity.rawValue): \(finding.kind) — \(finding.summary)")
            for line in finding.evidence { print("      \(line)") }
        }
    }

    struct CheckIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-in",
            abstract:
                "Register this instance (first time), check, and send the signed report to the server (exit as check; 8 when the server now refuses this client)."
        )
        @OptionGroup var profile: ProfileOptions
        @OptionGroup var options: IntegrityOptions
        @Flag(help: "Print the report as JSON.") var json = false

        func run() async throws {
            let shield = Shield(
                keychain: try await profile.keychain.open(),
                server: try await profile.client(),
                context: try options.context(keychain: profile.keychain.fileURL),
                policy: try options.policy()
            )
            try await shield.register()
            let (report, answer) = try await shield.checkIn()
            let refused = answer.refused
            if json {
                print(String(decoding: report.jsonRepresentation(), as: UTF8.self))
            } else {
                IntegrityCommand.printReport(report)
                print("checked in: the server keeps this signed report (verdict \(report.verdict.rawValue))")
                if refused {
                    print(
                        "the server now refuses this client's requests: a compromised report holds it until an "
                            + "administrator clears it (strongroom-server integrity clear); otherwise a better report "
                            + "lifts it"
                    )
                }
            }
            if refused { throw ExitCode(8) }
            let status = IntegrityCommand.exitStatus(report.verdict)
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Manifest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a manifest of executables' SHA-256 (at build time) for the repackaging check."
        )
        @Option(help: "The signing key file (strongroom integrity manifest-key).") var signingKey: String
        @Option(help: "Where to write the signed manifest. Must not exist.") var output: String
        @Argument(help: "The executables to list.") var executables: [String]

        func run() async throws {
            let text = try String(contentsOfFile: signingKey, encoding: .utf8)
            let key = try SigningPrivateKey(base64URLEncoded: text.trimmingCharacters(in: .whitespacesAndNewlines))
            let manifest = try ExecutableManifest(executables: executables.map { URL(fileURLWithPath: $0) })
            try AtomicFile.write(manifest.signed(with: key).jsonRepresentation(), to: output, mode: .createNew)
            print("signed \(manifest.digests.count) executables; key \(key.publicKey.base64URLEncoded)")
        }
    }

    struct ManifestKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "manifest-key",
            abstract: "Write a new Ed25519 manifest signing key (0600) and print its public key for the app to embed."
        )
        @Option(help: "Where to write the key. Must not exist.") var output: String

        func run() async throws {
            let key = SigningPrivateKey()
            try AtomicFile.write(Data((key.base64URLEncoded + "\n").utf8), to: output, mode: .createNew)
            print(key.publicKey.base64URLEncoded)
        }
    }
}
