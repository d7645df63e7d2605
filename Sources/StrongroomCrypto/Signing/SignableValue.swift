// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A JSON-like value with one canonical serialization, for documents that are signed.
///
/// Objects serialize with their keys sorted by UTF-16 code units (as JavaScript's `sort()` and Java's
/// `compareTo` order them); strings as JSON string literals escaped as `JSON.stringify` does (`/` is not
/// escaped, non-ASCII is written as is); no whitespace anywhere. This is the form the official SDKs sign
/// (e3db-swift `Signable`, e3db-java `toSerialized()`, js-sdk `RecordInfo.stringify()`).
public indirect enum SignableValue: Sendable, Hashable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// An integer in decimal.
    case integer(Int64)
    /// A string literal.
    case string(String)
    /// `[a,b,…]`
    case array([SignableValue])
    /// `{"k":v,…}` with sorted keys.
    case object([String: SignableValue])
}

extension SignableValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: SignableValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, SignableValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

/// A document that can be signed: its canonical serialization is the concatenation of its components'.
///
/// Most documents have one component. E3DB record signatures have two (the meta object, then the data object),
/// which is why this is a list; see ``RecordInfo``.
public protocol Signable: Sendable {
    /// The values whose canonical serializations, concatenated, are the bytes that get signed.
    var signableComponents: [SignableValue] { get }
}

extension SignableValue: Signable {
    public var signableComponents: [SignableValue] { [self] }
}

extension Signable {
    /// The exact text that ``SigningPrivateKey/signature(for:)-(Signable)`` signs (as UTF-8).
    public var canonicalSerialization: String {
        var output = ""
        for component in signableComponents { CanonicalSerializer.write(component, to: &output) }
        return output
    }
}
