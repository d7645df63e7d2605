// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire

/// A request body with a reader for its everyday shape, tried before `JSONDecoder`: objects of strings (and
/// `null` where the type allows it) with known keys, each once, whitespace anywhere JSON allows it, and strings
/// free of escapes and control characters — what the SDKs send. The reader answers nil for anything else, and
/// `JSONDecoder` then decides as before, so no body is read differently; it only skips `JSONDecoder`'s set-up and
/// its `Decoder` calls for the common case (a tenth of a record write's server time).
protocol PlainJSONReadable {
    /// The value in `bytes`, or nil when they are not in the everyday shape (they may still be valid JSON).
    static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Self?
}

extension RecordWriteRequest: PlainJSONReadable {
    static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> RecordWriteRequest? {
        var scanner = PlainJSONScanner(bytes)
        var meta: Meta?
        var data: [String: String]?
        var signature: String?
        var seen = SeenKeys()
        let read = scanner.object { scanner, key in
            guard seen.insert(key) else { return false }
            switch key {
            case "meta":
                meta = Meta.plainJSON(&scanner)
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
        return RecordWriteRequest(meta: meta, data: data, recordSignature: signature)
    }
}

extension RecordWriteRequest.Meta {
    fileprivate static func plainJSON(_ scanner: inout PlainJSONScanner) -> Self? {
        var meta = Self(writerID: nil, userID: nil, type: nil, plain: nil)
        var seen = SeenKeys()
        let read = scanner.object { scanner, key in
            guard seen.insert(key) else { return false }
            if key == "plain" {
                if scanner.null() { return true }
                meta.plain = scanner.stringMap()
                return meta.plain != nil
            }
            let member: WritableKeyPath<Self, String?>
            switch key {
            case "writer_id": member = \.writerID
            case "user_id": member = \.userID
            case "type": member = \.type
            default: return false
            }
            if scanner.null() { return true }
            meta[keyPath: member] = scanner.string()
            return meta[keyPath: member] != nil
        }
        return read ? meta : nil
    }
}

/// The keys of an object with a few known members seen so far: a short list, not a hash set (its reader stops at
/// the first unknown key, so the list never grows past the members and one more).
private struct SeenKeys {
    private var keys: [String] = []

    /// Whether `key` is new; records it.
    mutating func insert(_ key: String) -> Bool {
        guard !keys.contains(key) else { return false }
        keys.append(key)
        return true
    }
}
