// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomPKI
import X509

extension PKICommand {
    struct SaveTrust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save-trust",
            abstract: "Seal server roots and pins in the keychain under a label, for `--server-trust LABEL`.",
            discussion: """
                The item is encrypted and authenticated like every keychain item, so pins ship and rest protected.
                Saving again under the same label replaces it.
                """
        )
        @OptionGroup var keychain: KeychainOptions
        @Argument(help: "The label to save under.") var label: String
        @Option(help: "Trust only the CA certificates in this PEM file (default: the system's roots).")
        var caFile: String?
        @Option(name: .customLong("pin"), help: "A pin (SPKI SHA-256, base64) accepted for every host; repeatable.")
        var pins: [String] = []
        @Option(
            name: .customLong("host-pin"),
            help: "HOST=PIN: a pin accepted for HOST only; repeatable. With any, hosts without one are refused."
        )
        var hostPins: [String] = []

        func run() async throws {
            var hosts: [String: Set<PublicKeyPin>] = [:]
            for entry in hostPins {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw CLIError(description: "error: --host-pin is HOST=PIN", exitCode: .validationFailure)
                }
                hosts[parts[0].lowercased(), default: []].insert(try ConnectionOptions.pin(parts[1]))
            }
            let trust = ServerTrust(
                roots: try ConnectionOptions.roots(caFile),
                pins: Set(try pins.map(ConnectionOptions.pin)),
                hostPins: hosts
            )
            try trust.save(to: try await keychain.open(), label: label)
            print("saved server trust \(label)")
        }
    }

    struct Probe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect to the server as requests do; print the TLS version, ALPN and the server's chain."
        )
        @OptionGroup var profile: ProfileOptions

        func run() async throws {
            let security = try await profile.client().connectionSecurity()
            print("server:      \(security.host):\(security.port)")
            print("protocol:    \(security.tlsVersion), ALPN \(security.applicationProtocol ?? "none")")
            print("client cert: \(security.presentsClientCertificate ? "presented when asked" : "none")")
            for (index, certificate) in security.serverChain.enumerated() {
                print("chain[\(index)]:    \(certificate.subject) (pin \(certificate.publicKey.pin))")
            }
        }
    }
}
