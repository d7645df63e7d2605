// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import Testing

@Suite struct JSONValueDescriptionTests {
    @Test("a JSON value prints as JSON: keys sorted, slashes as they are")
    func printsAsJSON() {
        let value: JSONValue = ["b": [1, "x/y", true, .null], "a": 2.5]
        #expect(value.description == #"{"a":2.5,"b":[1,"x/y",true,null]}"#)
        #expect("\(JSONValue.string("hi"))" == #""hi""#)
    }
}
