// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// When an item can be read, as SwiftSecurity's `AccessPolicy`, mapped onto a store's lock state.
///
/// - ``Accessibility/whenUnlocked``: only while the store is unlocked; ``Keychain/lock()`` makes it unreadable.
/// - ``Accessibility/afterFirstUnlock``: from the first unlock until the ``Keychain`` is released, even after
///   ``Keychain/lock()`` (background work that must keep going).
/// - ``Options/userPresence``: the passphrase must be given again for this item, on every read and write
///   (``ItemQuery/authenticationContext``).
///
/// Apple-only options (biometry, device passcode, companion watch, application password, private-key usage) have
/// no Linux meaning: asking for them is ``KeychainError/Code/unsupported``, never silently ignored.
public struct AccessPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Which lock state the item needs.
    public enum Accessibility: String, Sendable, Hashable, CaseIterable {
        /// Readable while the store is unlocked.
        case whenUnlocked
        /// Readable from the first unlock until the keychain object is released.
        case afterFirstUnlock
    }

    /// Extra conditions.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The passphrase again, for this item. Supported by the encrypted-file and in-memory backends.
        public static let userPresence = Options(rawValue: 1 << 0)
        /// Apple only: any enrolled biometry. Unsupported.
        public static let biometryAny = Options(rawValue: 1 << 1)
        /// Apple only: the currently enrolled biometry. Unsupported.
        public static let biometryCurrentSet = Options(rawValue: 1 << 2)
        /// Apple only: the device passcode. Unsupported.
        public static let devicePasscode = Options(rawValue: 1 << 3)
        /// Apple only: a paired watch. Unsupported.
        public static let watch = Options(rawValue: 1 << 4)
        /// Apple only: a per-item application password. Unsupported (use ``userPresence``).
        public static let applicationPassword = Options(rawValue: 1 << 5)
        /// Apple only: Secure Enclave private-key usage. Unsupported.
        public static let privateKeyUsage = Options(rawValue: 1 << 6)

        static let supported: Options = [.userPresence]
    }

    /// Which lock state the item needs.
    public var accessibility: Accessibility
    /// Extra conditions.
    public var options: Options

    /// A policy; the default is ``Accessibility/whenUnlocked`` without options.
    public init(_ accessibility: Accessibility = .whenUnlocked, options: Options = []) {
        self.accessibility = accessibility
        self.options = options
    }

    /// `whenUnlocked`, no options.
    public static let `default` = AccessPolicy()

    /// Whether reading needs the passphrase again.
    public var requiresUserPresence: Bool { options.contains(.userPresence) }

    /// Throws ``KeychainError/Code/unsupported`` for Apple-only options.
    func validate() throws(KeychainError) {
        let unsupported = options.subtracting(Options.supported)
        guard unsupported.isEmpty else {
            throw KeychainError(
                .unsupported,
                "access-control options other than userPresence exist only on Apple platforms"
            )
        }
    }

    /// The stored form: `whenUnlocked`, `afterFirstUnlock`, with `+userPresence` when set.
    var storedForm: String { accessibility.rawValue + (requiresUserPresence ? "+userPresence" : "") }

    init?(storedForm: String) {
        let parts = storedForm.split(separator: "+")
        guard let first = parts.first, let accessibility = Accessibility(rawValue: String(first)) else { return nil }
        self.init(accessibility, options: parts.dropFirst().contains("userPresence") ? .userPresence : [])
    }

    public var description: String { storedForm }
}

/// Credentials for one operation: the passphrase that ``AccessPolicy/Options/userPresence`` items need again.
public struct AuthenticationContext: Sendable, Hashable, CustomStringConvertible {
    let passphrase: String

    /// The store's passphrase.
    public static func passphrase(_ passphrase: String) -> AuthenticationContext {
        AuthenticationContext(passphrase: passphrase)
    }

    public var description: String { "AuthenticationContext(redacted)" }
}
