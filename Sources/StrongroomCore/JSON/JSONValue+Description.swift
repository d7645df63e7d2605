// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// A JSON value prints as the JSON it is (keys sorted, slashes unescaped), not as Swift's enum dump: what a user
/// expects from `print(document.body["tags"])` or an interpolation in a message.
extension JSONValue: CustomStringConvertible {
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only a non-finite number fails to encode (JSON cannot hold one): it prints as nothing rather than trap.
        guard let data = try? encoder.encode(self) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}
