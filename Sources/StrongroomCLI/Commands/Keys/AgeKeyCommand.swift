// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto

/// `strongroom keys age [CLIENT]`: a client's post-quantum key as an age recipient (`age1pq1…`): this client's own,
/// or another's as the key log proves it, for `strongroom protect --to` and for age 1.3. With `--identity-file`, this
/// client's X-Wing key is written as an age identity file (mode 0600, new only) for `strongroom unprotect
/// --identity` and `age -d -i`.
struct AgeKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "age",
        abstract: "Print a client's post-quantum key as an age recipient (age1pq1…), proven by the key log for "
            + "another client; optionally write this client's key as an age identity file."
    )
    @OptionGroup var profile: ProfileOptions
    @Argument(help: "Another client: a client ID or a profile name (default: this client).") var client: String?
    @Option(help: "Write this client's key as an age identity file here (mode 0600; must not exist).")
    var identityFile: String?

    func run() async throws {
        if let client {
            guard identityFile == nil else {
                throw CLIError(
                    description: "error: --identity-file writes this client's own key; leave out the client ID",
                    exitCode: .validationFailure
                )
            }
            let id = try await ClientReference.resolve(client, option: "CLIENT", profiles: profile.directory)
            guard let key = try await profile.client().hybridPublicKey(of: id) else {
                throw CLIError(
                    description: "error: client \(client) has published no post-quantum key (it can run "
                        + "`strongroom keys post-quantum`)",
                    exitCode: .init(5)
                )
            }
            print(AgeRecipient.hybrid(key))
            return
        }
        let configuration = try await profile.configuration()
        guard let key = configuration.keys.hybridKey else {
            throw CLIError(
                description: "error: this profile has no post-quantum key: run `strongroom keys post-quantum` first",
                exitCode: .init(5)
            )
        }
        let identity = AgeIdentity(key)
        if let identityFile {
            let text =
                "# created by strongroom for client \(configuration.clientID)\n"
                + "# public key: \(identity.recipient)\n\(identity.secretText)\n"
            do {
                try AtomicFile.write(Data(text.utf8), to: identityFile, mode: .createNew)
            } catch {
                throw CLIError(
                    description: "error: \(identityFile): \(error.message); not overwriting a key",
                    exitCode: .init(error.exists ? 9 : 6)
                )
            }
        }
        print(identity.recipient)
    }
}

/// age identity files: `AGE-SECRET-KEY-…` lines, `#` comments and blank lines (as age reads them).
enum AgeIdentityFile {
    /// The identities in the files at `paths`.
    static func read(_ paths: [String]) throws -> [AgeIdentity] {
        var identities: [AgeIdentity] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError(description: "error: cannot read the identity file \(path)", exitCode: .init(6))
            }
            guard data.count <= 64 << 10 else {
                throw CLIError(description: "error: \(path) is too large to be an identity file", exitCode: .init(4))
            }
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
                do {
                    identities.append(try AgeIdentity(trimmed))
                } catch {
                    throw CLIError(
                        description: "error: \(path) holds a line that is not an age identity",
                        exitCode: .init(5)
                    )
                }
            }
        }
        guard !identities.isEmpty else {
            throw CLIError(description: "error: the identity file holds no identity", exitCode: .init(5))
        }
        return identities
    }
}
