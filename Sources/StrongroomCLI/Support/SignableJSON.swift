// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension SignableValue {
    /// The signable form of a JSON value. Numbers must be integers within ±2^53 (what every JSON parser keeps
    /// exact); fractions are refused, because their text differs between languages and signatures would not verify
    /// elsewhere.
    init(json: JSONValue) throws(CLIError) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .number(let value):
            guard value.rounded() == value, abs(value) <= 9_007_199_254_740_992 else {
                throw CLIError(
                    description: "error: the document holds \(value); signed documents take integers only",
                    exitCode: ExitCode(4)
                )
            }
            self = .integer(Int64(value))
        case .array(let items):
            var values: [SignableValue] = []
            for item in items { values.append(try SignableValue(json: item)) }
            self = .array(values)
        case .object(let members):
            var values: [String: SignableValue] = [:]
            for (key, item) in members { values[key] = try SignableValue(json: item) }
            self = .object(values)
        }
    }
}

/// What `strongroom sign` prints and `strongroom verify` reads.
struct SignedJSON: Codable {
    var document: JSONValue
    var signature: String
}
