// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCrypto
import StrongroomKeychain
import StrongroomShield
import StrongroomWire

/// What an integrity check needs from the command line: the manifest and its key, the files to keep owner-only,
/// policy changes.
struct IntegrityOptions: ParsableArguments {
    @Option(help: "The signed executable manifest (strongroom integrity manifest). Env: STRONGROOM_INTEGRITY_MANIFEST.")
    var manifest: String?

    @Option(
        help:
            "The manifest signer's public key (base64url Ed25519), as the app embeds it. Env: STRONGROOM_INTEGRITY_MANIFEST_KEY."
    )
    var manifestKey: String?

    @Option(name: .customLong("file"), help: "A secret file that must be owner-only; repeatable.")
    var files: [String] = []

    @Option(
        name: .customLong("weigh"),
        help: "Change the grading policy: FINDING=informational|suspicious|compromised; repeatable."
    )
    var weights: [String] = []

    /// The context for this process, with the keychain file at `keychain` among the protected files.
    func context(keychain: URL?, serverTime: Date? = nil) throws -> IntegrityContext {
        let environment = ProcessInfo.processInfo.environment
        var signed: (SignedExecutableManifest, SigningPublicKey)?
        if let path = manifest ?? environment["STRONGROOM_INTEGRITY_MANIFEST"] {
            guard let text = manifestKey ?? environment["STRONGROOM_INTEGRITY_MANIFEST_KEY"] else {
                throw CLIError(description: "error: --manifest needs --manifest-key", exitCode: .validationFailure)
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            signed = (
                try SignedExecutableManifest(jsonRepresentation: data), try SigningPublicKey(base64URLEncoded: text)
            )
        }
        var protected = files.map { URL(fileURLWithPath: $0) }
        if let keychain { protected.append(keychain) }
        return IntegrityContext(protectedFiles: protected, manifest: signed, serverTime: serverTime)
    }

    /// The default policy with the `--weigh` changes.
    func policy() throws -> GradingPolicy {
        var policy = GradingPolicy.default
        for weight in weights {
            let parts = weight.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let severity = IntegrityFinding.Severity(rawValue: parts[1]) else {
                throw CLIError(description: "error: --weigh takes FINDING=SEVERITY", exitCode: .validationFailure)
            }
            policy = policy.setting(IntegrityFinding.Kind(rawValue: parts[0]), to: severity)
        }
        return policy
    }
}
