// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by `StrongroomShield`.
///
/// Compare ``code``s, never messages. Messages never contain keys or protected contents. An integrity check never
/// throws: what it cannot read becomes a finding, not an error.
public struct ShieldError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case authenticationFailed, truncated, invalidFormat, keyUnavailable, io, exists, cancelled, invalidManifest
            case invalidParameters, server
        }

        private let kind: Kind

        /// Protected data did not authenticate: altered, or protected under another key (the two cannot be told
        /// apart). Nothing was written.
        public static let authenticationFailed = Code(kind: .authenticationFailed)
        /// Protected data ends before its final chunk. Nothing was written.
        public static let truncated = Code(kind: .truncated)
        /// The input is not protected data, or a manifest or report is malformed.
        public static let invalidFormat = Code(kind: .invalidFormat)
        /// The protector's key is not in the keychain (or the keychain is locked).
        public static let keyUnavailable = Code(kind: .keyUnavailable)
        /// A file could not be read or written (the destination must not exist).
        public static let io = Code(kind: .io)
        /// The destination file exists already: nothing was written over it.
        public static let exists = Code(kind: .exists)
        /// The task was cancelled; partial output was removed.
        public static let cancelled = Code(kind: .cancelled)
        /// An executable manifest's signature does not verify with the given key.
        public static let invalidManifest = Code(kind: .invalidManifest)
        /// An argument is out of range.
        public static let invalidParameters = Code(kind: .invalidParameters)
        /// Registration or check-in with the server failed; `underlying` holds the client's error.
        public static let server = Code(kind: .server)

        public var description: String { "\(kind)" }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }
}
