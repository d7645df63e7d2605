// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

extension SignableValue {
    /// The largest integer every JSON parser keeps exact (2^53): the bound on a signable number.
    public static let maximumExactInteger: Int64 = 9_007_199_254_740_992

    /// The signable form of a JSON value — how `strongroom sign` reads a document, so an app signs what the CLI
    /// signs. Numbers must be integers within ±2^53; fractions are refused, because their text differs between
    /// languages and a signature over one would not verify in another.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a fraction or an integer out of that range, naming it.
    public init(json: JSONValue) throws(CryptoError) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .number(let value):
            guard value.rounded() == value, abs(value) <= Double(Self.maximumExactInteger),
                let integer = Int64(exactly: value)
            else {
                throw CryptoError(.invalidFormat, "the document holds \(value); signed documents take integers only")
            }
            self = .integer(integer)
        case .array(let items):
            var values: [SignableValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try SignableValue(json: item)) }
            self = .array(values)
        case .object(let members):
            var values: [String: SignableValue] = [:]
            values.reserveCapacity(members.count)
            for (key, item) in members { values[key] = try SignableValue(json: item) }
            self = .object(values)
        }
    }
}
