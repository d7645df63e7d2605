// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Finds where a run of JSON string bytes that need no escaping ends: at `"`, `\` or a control character below
/// U+0020. ``CanonicalJSON`` copies such runs whole and ``JSONReader`` skips them, eight bytes at a time.
enum JSONPlainRun {
    /// The offset of the first byte at or after `start` that is `"`, `\` or below 0x20, or `bytes.count` when
    /// there is none.
    ///
    /// Eight bytes are tested at once with the usual word tricks: for a word `w`, `(w - 0x01…01·n) & ~w & 0x80…80`
    /// is non-zero exactly when some byte of `w` is below `n` (n ≤ 0x80); a byte equal to `c` is a zero byte of
    /// `w ^ 0x01…01·c`. A word that may hold such a byte is then read byte by byte, so the answer is exact.
    @inline(__always)
    static func end(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while bytes.count - index >= 8 {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let control = (word &- ones &* 0x20) & ~word
            let quoted = (quote &- ones) & ~quote
            let escaped = (backslash &- ones) & ~backslash
            if (control | quoted | escaped) & high != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }
}
