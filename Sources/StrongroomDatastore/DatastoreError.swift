// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by ``DatastoreManager`` and ``Datastore``. Compare ``code``s; messages never contain keys or
/// document contents.
public struct DatastoreError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case invalidKey, invalidName, wrongKey, keyRequired, notEncrypted, notFound, storage
        }

        private let kind: Kind

        /// A key is not exactly 32 bytes. Nothing was opened.
        public static let invalidKey = Code(kind: .invalidKey)
        /// A datastore name is empty, too long, or has characters other than `a-z 0-9 _ $ ( ) + -` (no path
        /// separators, no leading dot).
        public static let invalidName = Code(kind: .invalidName)
        /// The key does not open this encrypted datastore. Nothing was read or written.
        public static let wrongKey = Code(kind: .wrongKey)
        /// The datastore is encrypted (or a key provider returned no key): it is never opened without its key,
        /// and never created unencrypted through a key provider.
        public static let keyRequired = Code(kind: .keyRequired)
        /// A key was given for a datastore that is not encrypted. It is not opened, and not converted.
        public static let notEncrypted = Code(kind: .notEncrypted)
        /// No datastore of that name.
        public static let notFound = Code(kind: .notFound)
        /// The file system or SQLCipher failed.
        public static let storage = Code(kind: .storage)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }
}
