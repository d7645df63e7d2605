// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A JSON value with a reader for its everyday shape, tried before `JSONDecoder`: objects of strings (and `null`
/// where the type allows it) with known keys, each once, whitespace anywhere JSON allows it, and strings free of
/// escapes and control characters — what the SDKs send and the server answers. The reader answers nil for anything
/// else, and `JSONDecoder` then decides as before, so no text is read differently; it only skips `JSONDecoder`'s
/// set-up and its `Decoder` calls for the common case (a tenth of a record write's server time, a tenth of a record
/// read's SDK time).
package protocol PlainJSONReadable {
    /// The value in `bytes`, or nil when they are not in the everyday shape (they may still be valid JSON).
    static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Self?
}

/// The keys of an object with a few known members seen so far: a short list, not a hash set (its reader stops at
/// the first unknown key, so the list never grows past the members and one more).
package struct SeenKeys {
    private var keys: [String] = []

    package init() {}

    /// Whether `key` is new; records it.
    package mutating func insert(_ key: String) -> Bool {
        guard !keys.contains(key) else { return false }
        keys.append(key)
        return true
    }
}

extension PlainJSONScanner {
    /// The members of a record write or answer — `{"meta": …, "data": {…}, "rec_sig": "…"}`, `data` and `rec_sig`
    /// `null` or left out, each key once and no other — and nothing after them; `readMeta` reads the meta. Nil for
    /// anything else.
    package static func recordMembers<Meta>(
        of bytes: UnsafeBufferPointer<UInt8>,
        meta readMeta: (inout PlainJSONScanner) -> Meta?
    ) -> (meta: Meta, data: [String: String]?, signature: String?)? {
        var scanner = PlainJSONScanner(bytes)
        var meta: Meta?
        var data: [String: String]?
        var signature: String?
        var seen = SeenKeys()
        let read = scanner.object { scanner, key in
            guard seen.insert(key) else { return false }
            switch key {
            case "meta":
                meta = readMeta(&scanner)
                return meta != nil
            case "data":
                if scanner.null() { return true }
                data = scanner.stringMap()
                return data != nil
            case "rec_sig":
                if scanner.null() { return true }
                signature = scanner.string()
                return signature != nil
            default:
                return false
            }
        }
        guard read, scanner.isAtEnd, let meta else { return nil }
        return (meta, data, signature)
    }
}
