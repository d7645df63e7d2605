// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// The one serializer behind ``Signable/canonicalSerialization``; signing and verifying both call it.
enum CanonicalSerializer {
    static func write(_ value: SignableValue, to output: inout String) {
        switch value {
        case .null:
            output += "null"
        case .bool(let flag):
            output += flag ? "true" : "false"
        case .integer(let number):
            output += String(number)
        case .string(let text):
            JSONText.appendString(text, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            let keys = members.keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }
            for (index, key) in keys.enumerated() {
                if index > 0 { output += "," }
                JSONText.appendString(key, to: &output)
                output += ":"
                if let member = members[key] { write(member, to: &output) }
            }
            output += "}"
        }
    }
}
