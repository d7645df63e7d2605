// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

/// Expects the hand-written JSON `text` to parse and to carry exactly the members `JSONEncoder` writes for `value`.
func expectSameMembers(
    _ text: String,
    as value: some Encodable,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let ours = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
    let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? NSDictionary
    #expect(ours != nil, sourceLocation: sourceLocation)
    #expect(ours == theirs, sourceLocation: sourceLocation)
}
