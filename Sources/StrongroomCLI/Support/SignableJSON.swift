// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCrypto

/// A JSON value that can be signed: ``SignableValue`` with JSON coding. Non-integer numbers are refused, because
/// their text form differs between languages and would make signatures unverifiable elsewhere.
struct SignableJSON: Codable {
    var value: SignableValue

    init(_ value: SignableValue) { self.value = value }

    static func parse(_ data: Data) throws -> SignableJSON {
        do {
            return try JSONDecoder().decode(SignableJSON.self, from: data)
        } catch {
            throw CLIError(
                description: "error: the document is not JSON the signature format supports (no fractions)",
                exitCode: ExitCode(4)
            )
        }
    }

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [SignableValue] = []
            while !array.isAtEnd { items.append(try array.decode(SignableJSON.self).value) }
            value = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var fields: [String: SignableValue] = [:]
            for key in object.allKeys {
                fields[key.stringValue] = try object.decode(SignableJSON.self, forKey: key).value
            }
            value = .object(fields)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let integer = try? single.decode(Int64.self) {
            value = .integer(integer)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .integer(let integer):
            var single = encoder.singleValueContainer()
            try single.encode(integer)
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .array(let items):
            var array = encoder.unkeyedContainer()
            for item in items { try array.encode(SignableJSON(item)) }
        case .object(let fields):
            var object = encoder.container(keyedBy: AnyKey.self)
            for (key, item) in fields { try object.encode(SignableJSON(item), forKey: AnyKey(stringValue: key)) }
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// What `strongroom sign` prints and `strongroom verify` reads.
struct SignedJSON: Codable {
    var document: SignableJSON
    var signature: String
}
