// Strongroom — SPDX-License-Identifier: Apache-2.0

/// An error thrown by `StrongroomCore`.
///
/// Compare ``code``s, never messages. Two errors are equal when their codes are equal.
public struct CoreError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidEncoding
        }

        private let kind: Kind

        /// Text was not valid base64url (wrong alphabet, bad padding or non-zero trailing bits).
        public static let invalidEncoding = Code(kind: .invalidEncoding)

        public var description: String { "\(kind)" }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }

    /// Text was not valid base64url; nothing was decoded.
    public static func invalidEncoding(_ message: String, fileID: String = #fileID, line: Int = #line) -> CoreError {
        CoreError(.invalidEncoding, message, fileID: fileID, line: line)
    }
}
