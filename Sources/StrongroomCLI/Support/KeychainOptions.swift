// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomAgent
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomSecretService
import Synchronization

/// The passphrase once read: a command reads it at most once, even when it opens the keychain twice.
private let passphraseCache = Mutex<String?>(nil)

/// Which keychain a command uses and how it is unlocked.
struct KeychainOptions: ParsableArguments {
    enum Backend: String, ExpressibleByArgument, CaseIterable {
        case file
        case secretService = "secret-service"
    }

    @Option(help: "file (an encrypted file, the default) or secret-service (the desktop keyring via libsecret).")
    var backend: Backend = .file

    @Option(
        help:
            "The keychain file (default ~/.strongroom/keychain, or $XDG_DATA_HOME/strongroom/keychain when that is set and the former does not exist). Env: STRONGROOM_KEYCHAIN."
    )
    var keychainFile: String?

    @Option(
        help: "Read the passphrase from this file's first line (default: STRONGROOM_KEYCHAIN_PASSPHRASE, else stdin)."
    )
    var passphraseFile: String?

    @Flag(
        help:
            "Read the passphrase from the desktop keyring (the password item service=strongroom, username=keychain, as secret-tool or Python's keyring store it)."
    )
    var passphraseFromSecretService = false

    /// `--passphrase-file`, else `STRONGROOM_KEYCHAIN_PASSPHRASE_FILE` when set and not empty.
    var passphraseFileName: String? {
        passphraseFile
            ?? ProcessInfo.processInfo.environment["STRONGROOM_KEYCHAIN_PASSPHRASE_FILE"].flatMap {
                $0.isEmpty ? nil : $0
            }
    }

    var fileURL: URL {
        keychainFile.map { URL(fileURLWithPath: $0) } ?? Keychain.defaultURL
    }

    /// The passphrase: from `--passphrase-file`, the environment, or the first line of standard input.
    func passphrase(prompt: String = "keychain passphrase: ") throws -> String {
        if let cached = passphraseCache.withLock({ $0 }) { return cached }
        let passphrase = try readPassphrase(prompt: prompt)
        passphraseCache.withLock { $0 = passphrase }
        return passphrase
    }

    /// Whether the passphrase is typed at a prompt (no file, no variable, no Secret Service, a terminal): a mistyped
    /// one may then be typed again.
    var passphraseIsTyped: Bool {
        passphraseFileName == nil && !passphraseFromSecretService
            && ProcessInfo.processInfo.environment["STRONGROOM_KEYCHAIN_PASSPHRASE"] == nil
            && isatty(STDIN_FILENO) == 1
    }

    /// Forgets a passphrase that did not open the keychain, so the next ``passphrase(prompt:)`` asks again.
    func forgetPassphrase() { passphraseCache.withLock { $0 = nil } }

    /// The passphrase asked again for a userPresence item, never from the cache: `--passphrase-file` or the
    /// environment when given, else a new prompt on the terminal (or the next line of standard input).
    func presencePassphrase() throws -> String {
        try Self.secret(
            file: passphraseFileName,
            environment: "STRONGROOM_KEYCHAIN_PASSPHRASE",
            prompt: "keychain passphrase again (this item needs user presence): "
        )
    }

    private func readPassphrase(prompt: String) throws -> String {
        if passphraseFromSecretService {
            guard let text = try Keychain.passphrase(from: [.secretService()]) else {
                throw CLIError(
                    description:
                        "error: no keychain passphrase in the Secret Service (service=strongroom, username=keychain)",
                    exitCode: .validationFailure
                )
            }
            return text
        }
        return try Self.secret(file: passphraseFileName, environment: "STRONGROOM_KEYCHAIN_PASSPHRASE", prompt: prompt)
    }

    /// A secret: the first line of `file` when given, else the environment variable `environment`, else typed at a
    /// prompt on a terminal or the next line of standard input.
    static func secret(file: String?, environment: String, prompt: String) throws -> String {
        if file == nil, let text = ProcessInfo.processInfo.environment[environment] { return text }
        return try readSecretLine(file: file, prompt: prompt)
    }

    /// One secret line: the first line of `file`, else typed at a prompt on a terminal, else the next line of
    /// standard input.
    static func readSecretLine(file: String?, prompt: String) throws -> String {
        if let file {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        if isatty(STDIN_FILENO) == 1, let typed = getpass(prompt) {
            return String(cString: typed)
        }
        guard let line = readLine(strippingNewline: true) else {
            throw CLIError(description: "error: no passphrase on standard input", exitCode: .validationFailure)
        }
        return line
    }

    /// The keychain, opened and unlocked: by a running `strongroom agent` that holds this file's key (no
    /// passphrase, no key derivation), else with the passphrase. The file reading, the agent's socket and Argon2id
    /// run on the blocking executor, never on the caller's thread of the cooperative pool.
    func open() async throws -> Keychain {
        switch backend {
        case .secretService:
            return Keychain(backend: SecretServiceBackend())
        case .file:
            let (url, options) = (fileURL, self)
            let file = try await BlockingExecutor.shared.run { _ in
                let file = try EncryptedFileBackend.open(at: url)
                if let key = AgentClient.unlockKey(
                    storeID: try file.storeID,
                    note: { if Verbosity.isOn { printError($0) } }
                ) {
                    try file.unlock(with: key)
                    return file
                }
                // Typed at a prompt, a mistyped passphrase may be typed again (three tries, as sudo allows).
                for attempt in 1...3 {
                    do {
                        try file.unlock(passphrase: try options.passphrase())
                        return file
                    } catch let error as KeychainError
                        where error.code == .wrongPassphrase && attempt < 3 && options.passphraseIsTyped
                    {
                        options.forgetPassphrase()
                        printError("that passphrase does not open the keychain: try again")
                    }
                }
                return file
            }
            return Keychain(backend: file)
        }
    }
}
