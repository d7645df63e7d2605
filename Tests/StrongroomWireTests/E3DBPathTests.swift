// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire
import Testing

/// The one list of E3DB paths: templates name their parameters, and rendering encodes each value as one segment.
@Suite struct E3DBPathTests {
    @Test("rendering replaces each parameter in order, percent-encoding a value as one path segment")
    func render() {
        #expect(E3DBPath.records.render() == "/v1/storage/records")
        #expect(E3DBPath.recordVersion.parameters == ["id", "version"])
        #expect(
            E3DBPath.accessKey.render("w", "u", "r", "a/b?c#d e")
                == "/v1/storage/access_keys/w/u/r/a%2Fb%3Fc%23d%20e"
        )
        #expect(E3DBPath.integrityClear.render("c") == "/v1/admin/integrity/c/clear")
    }

    @Test("every template is absolute, without empty segments, and listed once")
    func templates() {
        for path in E3DBPath.all {
            #expect(path.template.hasPrefix("/v"), "\(path)")
            #expect(!path.template.dropFirst().split(separator: "/", omittingEmptySubsequences: false).contains(""))
        }
        #expect(Set(E3DBPath.all).count == E3DBPath.all.count)
    }
}
