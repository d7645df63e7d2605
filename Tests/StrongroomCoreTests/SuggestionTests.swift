// Strongroom — SPDX-License-Identifier: Apache-2.0
import Testing

@testable import StrongroomCore

@Suite struct SuggestionTests {
    @Test("a swap of two neighbouring letters is one edit: raed is read, fiel is file")
    func transpositions() {
        let names = ["read", "write", "file", "share", "store", "sharing"]
        #expect(Suggestion.closest(to: "raed", among: names) == "read")
        #expect(Suggestion.closest(to: "fiel", among: names) == "file")
        #expect(Suggestion.closest(to: "wirte", among: names) == "write")
        #expect(Suggestion.closest(to: "shrae", among: names) == "share")
        #expect(Suggestion.closest(to: "zzzz", among: names) == nil)
        #expect(Suggestion.editDistance(Array("ab"), Array("ba")) == 1)
        #expect(Suggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(Suggestion.editDistance(Array(""), Array("abc")) == 3)
    }
}
