// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire

extension RecordWriteRequest: PlainJSONReadable {
    static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> RecordWriteRequest? {
        guard let members = PlainJSONScanner.recordMembers(of: bytes, meta: Meta.plainJSON) else { return nil }
        return RecordWriteRequest(meta: members.meta, data: members.data, recordSignature: members.signature)
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
