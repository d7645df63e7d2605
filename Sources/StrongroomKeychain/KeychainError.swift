// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by ``Keychain`` and its backends. Compare ``code``s; messages never contain secrets.
public struct KeychainError: StrongroomError {
    /// What kind of failure this is: static members, so new kinds can be added without breaking a `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case duplicateItem, locked, wrongPassphrase, authenticationRequired, tampered, corrupted, typeMismatch
            case unsupported, io, invalidParameters
        }

        private let kind: Kind

        /// An item with this identity exists already (pass `replacing: true`, use `Keychain.update(_:query:)`, or remove it first).
        public static let duplicateItem = Code(kind: .duplicateItem)
        /// The store is locked for this item's access policy: unlock it first.
        public static let locked = Code(kind: .locked)
        /// The passphrase does not open the store (or the item, for ``AccessPolicy/Options/userPresence``).
        public static let wrongPassphrase = Code(kind: .wrongPassphrase)
        /// This item needs the passphrase again (``AccessPolicy/Options/userPresence``) and none was given.
        public static let authenticationRequired = Code(kind: .authenticationRequired)
        /// The file or an item did not authenticate: altered, or sealed under another identity. Nothing is returned.
        public static let tampered = Code(kind: .tampered)
        /// The file is not a keychain of a format this version reads (truncated, not JSON, unknown version).
        public static let corrupted = Code(kind: .corrupted)
        /// The stored value is of another type than the one asked for (a P-256 key read as a password).
        public static let typeMismatch = Code(kind: .typeMismatch)
        /// An Apple-only option (biometry, access groups, iCloud sync…) or one the backend cannot honour.
        public static let unsupported = Code(kind: .unsupported)
        /// The file system or the Secret Service failed.
        public static let io = Code(kind: .io)
        /// A parameter is out of range (KDF parameters, empty identity).
        public static let invalidParameters = Code(kind: .invalidParameters)

        /// The code's name, such as `wrongPassphrase`.
        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }
}
