// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by ``Keychain`` and its backends. Compare ``code``s; messages never contain secrets.
public struct KeychainError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Hashable {
        /// An item with this identity exists already (use ``Keychain/update(_:query:)`` or remove it first).
        case duplicateItem
        /// The store is locked for this item's access policy: unlock it first.
        case locked
        /// The passphrase does not open the store (or the item, for ``AccessPolicy/Options/userPresence``).
        case wrongPassphrase
        /// This item needs the passphrase again (``AccessPolicy/Options/userPresence``) and none was given.
        case authenticationRequired
        /// The file or an item did not authenticate: altered, or sealed under another identity. Nothing is returned.
        case tampered
        /// The file is not a keychain of a format this version reads (truncated, not JSON, unknown version).
        case corrupted
        /// The stored value is of another type than the one asked for (a P-256 key read as a password).
        case typeMismatch
        /// An Apple-only option (biometry, access groups, iCloud sync…) or one the backend cannot honour.
        case unsupported
        /// The file system or the Secret Service failed.
        case io
        /// A parameter is out of range (KDF parameters, empty identity).
        case invalidParameters
    }

    /// What kind of failure this is.
    public var code: Code
    /// A human-readable explanation, free of secrets.
    public var message: String
    /// Where the error was created.
    public var location: SourceLocation

    public var description: String { "KeychainError.\(code.rawValue): \(message)" }

    public static func == (lhs: KeychainError, rhs: KeychainError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Creates an error.
    public init(_ code: Code, _ message: String, fileID: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.location = SourceLocation(fileID: fileID, line: line)
    }
}
