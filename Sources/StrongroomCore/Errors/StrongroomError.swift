// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The shape every Strongroom module's error has: an extensible ``code`` to compare, a redacted ``message``, where
/// it was made, and the lower-level failure it wraps.
///
/// Conforming types get `==` and `hash(into:)` over the code alone (as swift-certificates' `CertificateError`
/// compares), and a `description` of the form `TypeName.code: message`. A module's `Code` is a struct with static
/// members over a private enum, so adding a failure kind is never a breaking change and no `switch` over codes
/// can be exhaustive.
public protocol StrongroomError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The module's code type: a struct with static members.
    associatedtype Code: Hashable, Sendable, CustomStringConvertible

    /// What kind of failure this is. Compare codes, never messages.
    var code: Code { get }
    /// A human-readable explanation. Never contains key material, plaintext or user data.
    var message: String { get }
    /// Where the error was created.
    var location: SourceLocation { get }
    /// The lower-level failure (libsodium, the file system, a database, a transport), if any.
    var underlying: (any Error & Sendable)? { get }
}

extension StrongroomError {
    /// Two errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `TypeName.code: message`.
    public var description: String { "\(Self.self).\(code): \(message)" }
}
