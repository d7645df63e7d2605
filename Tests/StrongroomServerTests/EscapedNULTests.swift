// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import Testing

@testable import StrongroomServer

/// The `\u0000` check every JSON body passes before it is decoded.
@Suite struct EscapedNULTests {
    @Test("finds a \\u0000 escape anywhere, and nothing that only looks like one")
    func cases() {
        let found = [#"{"a":"\u0000"}"#, #"\u0000"#, #"{"a":"x\\\u0000"}"#, #"{"\u0000":1}"#]
        let clean = [
            "", #"{"a":"b"}"#, #"{"a":"\\u0000"}"#, #"{"a":"\u0001"}"#, #"\u000"#, #"{"a":"\\\\u0000"}"#, #"\"#,
            #"\\"#, #"{"a":"\u00"}"#, String(repeating: "A", count: 5000),
        ]
        for text in found {
            #expect(containsEscapedNUL(Array(text.utf8)), "\(text)")
            #expect(containsEscapedNUL(ByteBuffer(string: text).readableBytesView), "\(text)")
            #expect(containsEscapedNUL(text.utf8.lazy.map { $0 }), "\(text): a collection without contiguous storage")
        }
        for text in clean {
            #expect(!containsEscapedNUL(Array(text.utf8)), "\(text)")
            #expect(!containsEscapedNUL(text.utf8.lazy.map { $0 }), "\(text)")
        }
    }
}
