// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The shape every Strongroom module's error has: an extensible ``code`` to compare, a redacted ``message``, where
/// it was made, and the lower-level failure it wraps.
///
/// A conforming type stores a `code` and an ``ErrorContext`` and gets the rest from here: ``message``,
/// ``location`` and ``underlying``; an `init(_:_:underlying:fileID:line:)` that fills in the location; `==` and
/// `hash(into:)` over the code alone (as swift-certificates' `CertificateError` compares); and a `description` of
/// the form `TypeName.code: message`. A module's `Code` is a struct with static members over a private enum, so
/// adding a failure kind is never a breaking change and no `switch` over codes can be exhaustive.
public protocol StrongroomError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The module's code type: a struct with static members.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible

    /// What kind of failure this is. Compare codes, never messages.
    var code: Code { get }
    /// The message, location and cause.
    var context: ErrorContext { get }

    /// Creates an error from its parts; callers normally use `init(_:_:underlying:fileID:line:)`.
    init(code: Code, context: ErrorContext)
}

/// What every error carries besides its code: a redacted message, where it was made, and its cause.
public struct ErrorContext: Sendable {
    /// A human-readable explanation. Never contains key material, plaintext or user data.
    public var message: String
    /// Where the error was created.
    public var location: SourceLocation
    /// The lower-level failure (libsodium, the file system, a database, a transport), if any.
    public var underlying: (any Error & Sendable)?

    /// Creates a context.
    public init(message: String, location: SourceLocation, underlying: (any Error & Sendable)? = nil) {
        self.message = message
        self.location = location
        self.underlying = underlying
    }
}

extension StrongroomError {
    /// Creates an error with `code` and `message`, located at the caller.
    public init(
        _ code: Code,
        _ message: String,
        underlying: (any Error & Sendable)? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        let location = SourceLocation(fileID: fileID, line: line)
        self.init(code: code, context: ErrorContext(message: message, location: location, underlying: underlying))
    }

    /// A human-readable explanation. Never contains key material, plaintext or user data.
    public var message: String { context.message }
    /// Where the error was created.
    public var location: SourceLocation { context.location }
    /// The lower-level failure (libsodium, the file system, a database, a transport), if any.
    public var underlying: (any Error & Sendable)? { context.underlying }

    /// Two errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `TypeName.code: message`.
    public var description: String { "\(Self.self).\(code): \(message)" }
}
