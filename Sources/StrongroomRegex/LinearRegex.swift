// Strongroom — SPDX-License-Identifier: Apache-2.0
import CRE2

/// A compiled RE2 program: matching takes time linear in the value (RE2 builds an automaton and never
/// backtracks), so a hostile pattern such as `(a+)+` costs no more than `a+`.
///
/// `@unchecked Sendable`: RE2 documents a compiled `RE2` object as safe for concurrent matching, and this class
/// never mutates it after compiling.
package final class LinearRegex: @unchecked Sendable {
    /// How much memory one compiled program (and its DFA cache) may use.
    package static let maximumMemory: Int64 = 1 << 20

    private let program: OpaquePointer

    /// Compiles a regular expression in RE2 syntax (`.` matches newlines; no capture groups are kept).
    ///
    /// - Returns: nil when the pattern is invalid or its program would exceed ``maximumMemory``.
    package init?(pattern: String) {
        var text = pattern
        guard let program = text.withUTF8({ strongroom_re2_compile($0.baseAddress, $0.count, Self.maximumMemory) })
        else { return nil }
        self.program = program
    }

    /// Compiles a glob: `*` matches any run of characters, `?` one character, everything else itself.
    package init?(glob: String) {
        var text = glob
        guard
            let program = text.withUTF8({ strongroom_re2_compile_glob($0.baseAddress, $0.count, Self.maximumMemory) })
        else { return nil }
        self.program = program
    }

    deinit { strongroom_re2_free(program) }

    /// Whether the whole of `value` matches.
    package func matches(_ value: String) -> Bool {
        var text = value
        return text.withUTF8 { strongroom_re2_full_match(program, $0.baseAddress, $0.count) == 1 }
    }

    /// Whether some part of `value` matches (the pattern's own `^` and `$` still anchor it).
    package func occurs(in value: String) -> Bool {
        var text = value
        return text.withUTF8 { strongroom_re2_partial_match(program, $0.baseAddress, $0.count) == 1 }
    }
}
