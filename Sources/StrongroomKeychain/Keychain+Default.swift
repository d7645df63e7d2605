// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore

#if canImport(Glibc)
import Glibc
#endif

extension Keychain {
    /// Where ``default`` finds its passphrase.
    public enum PassphraseSource: Sendable {
        /// An environment variable's value.
        case environment(String)
        /// The first line of a file that only its owner may read.
        case file(URL)
        /// Typed at a prompt on the controlling terminal (not echoed).
        case prompt(String)
        /// A passphrase your code holds (from your own provider or UI).
        case value(String)
        /// A passphrase your code looks up when it is needed; nil passes on to the next source. The Secret Service
        /// module offers one that reads the desktop keyring (`PassphraseSource.secretService(service:account:)`).
        case provider(@Sendable () throws(KeychainError) -> String?)
    }

    /// The standard per-user keychain file: `$STRONGROOM_KEYCHAIN` when set; else `~/.strongroom/keychain` when it
    /// exists; else `$XDG_DATA_HOME/strongroom/keychain` when that variable is set; else `~/.strongroom/keychain`.
    public static var defaultURL: URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["STRONGROOM_KEYCHAIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let home = HomeDirectory.url.appending(path: ".strongroom/keychain")
        if !FileManager.default.fileExists(atPath: home.path), let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data).appending(path: "strongroom/keychain")
        }
        return home
    }

    /// The sources ``default`` tries, in order: `STRONGROOM_KEYCHAIN_PASSPHRASE`, the file named by
    /// `STRONGROOM_KEYCHAIN_PASSPHRASE_FILE`, then a prompt when a terminal is attached.
    public static var defaultPassphraseSources: [PassphraseSource] {
        var sources: [PassphraseSource] = [.environment("STRONGROOM_KEYCHAIN_PASSPHRASE")]
        if let file = ProcessInfo.processInfo.environment["STRONGROOM_KEYCHAIN_PASSPHRASE_FILE"], !file.isEmpty {
            sources.append(.file(URL(fileURLWithPath: file)))
        }
        sources.append(.prompt("keychain passphrase: "))
        return sources
    }

    /// The user's keychain in one line, as SwiftSecurity's `Keychain.default`: the encrypted file at ``defaultURL``
    /// (created 0600, with its folder 0700, when missing), unlocked with the first passphrase
    /// ``defaultPassphraseSources`` yields.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` when no source has a passphrase (no variable, no file, no
    ///   terminal); what ``encryptedFile(at:passphrase:parameters:)`` throws.
    public static var `default`: Keychain {
        get throws(KeychainError) { try opening(defaultURL, passphrase: defaultPassphraseSources) }
    }

    /// What was tried, in the words of the sources the app configured: "set MYAPP_PASSPHRASE, put it in FILE, or run
    /// on a terminal".
    static func describe(_ sources: [PassphraseSource]) -> String {
        let tried = sources.compactMap { source -> String? in
            switch source {
            case .environment(let name): "set \(name)"
            case .file(let url): "put it in \(url.path)"
            case .prompt: "run on a terminal"
            case .value: nil
            case .provider: "let the app's passphrase provider answer"
            }
        }
        guard !tried.isEmpty else { return "none of the configured sources gave one" }
        guard tried.count > 1 else { return tried[0] }
        return tried.dropLast().joined(separator: ", ") + ", or " + (tried.last ?? "")
    }

    /// The encrypted-file keychain at `url` (created when missing), unlocked with the first passphrase `sources`
    /// yields.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` when none yields one, or a passphrase file is readable
    ///   by others; what ``encryptedFile(at:passphrase:parameters:)`` throws.
    public static func opening(_ url: URL, passphrase sources: [PassphraseSource]) throws(KeychainError) -> Keychain {
        guard let passphrase = try passphrase(from: sources) else {
            throw KeychainError(.invalidParameters, "no keychain passphrase: " + describe(sources))
        }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw KeychainError(.io, "the keychain folder cannot be created", underlying: error)
        }
        return try encryptedFile(at: url, passphrase: passphrase)
    }

    /// The first passphrase `sources` yield, in order, or nil when none has one.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` for a passphrase file others can read; what a
    ///   ``PassphraseSource/provider(_:)`` throws.
    public static func passphrase(from sources: [PassphraseSource]) throws(KeychainError) -> String? {
        for source in sources {
            switch source {
            case .value(let text): return text
            case .provider(let lookup):
                if let text = try lookup() { return text }
            case .environment(let name):
                if let text = ProcessInfo.processInfo.environment[name] { return text }
            case .file(let url):
                if case .exposed(let reason) = AtomicFile.privacy(of: url.path) {
                    throw KeychainError(.invalidParameters, "the passphrase file is refused: \(reason)")
                }
                // An unreadable passphrase file: try the next source.
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
                return String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
            case .prompt(let prompt):
                guard isatty(STDIN_FILENO) == 1, let typed = getpass(prompt) else { continue }
                return String(cString: typed)
            }
        }
        return nil
    }
}
