// Strongroom — SPDX-License-Identifier: Apache-2.0

extension RecordResponse: PlainJSONReadable {
    /// A record answer as the server writes it (``RecordMeta/jsonText`` and the stored fields), read without
    /// `JSONDecoder`. A file record's answer (its `file_meta` holds a number), an unknown or repeated key, an
    /// escape, or a timestamp ``Timestamp/init(iso8601:)`` refuses: each answers nil, and `JSONDecoder` decides.
    package static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> RecordResponse? {
        guard let members = PlainJSONScanner.recordMembers(of: bytes, meta: RecordMeta.plainJSON),
            let data = members.data  // an answer always has its fields; `JSONDecoder` refuses one without
        else { return nil }
        return RecordResponse(meta: members.meta, data: data, recordSignature: members.signature)
    }
}

extension RecordMeta {
    /// Every member but `file_meta`, which may only be `null` here; nil unless all the others are present.
    fileprivate static func plainJSON(_ scanner: inout PlainJSONScanner) -> RecordMeta? {
        var strings: [String?] = Array(repeating: nil, count: 5)
        var plain: [String: String]?
        var created: Timestamp?
        var lastModified: Timestamp?
        var seen = SeenKeys()
        let read = scanner.object { scanner, key in
            guard seen.insert(key) else { return false }
            let slot: Int
            switch key {
            case "record_id": slot = 0
            case "writer_id": slot = 1
            case "user_id": slot = 2
            case "type": slot = 3
            case "version": slot = 4
            case "plain":
                plain = scanner.stringMap()
                return plain != nil
            case "created":
                created = scanner.timestamp()
                return created != nil
            case "last_modified":
                lastModified = scanner.timestamp()
                return lastModified != nil
            case "file_meta":
                return scanner.null()
            default:
                return false
            }
            strings[slot] = scanner.string()
            return strings[slot] != nil
        }
        guard read, let recordID = strings[0], let writerID = strings[1], let userID = strings[2],
            let type = strings[3], let version = strings[4], let plain, let created, let lastModified
        else { return nil }
        return RecordMeta(
            recordID: recordID,
            writerID: writerID,
            userID: userID,
            type: type,
            plain: plain,
            created: created,
            lastModified: lastModified,
            version: version
        )
    }
}
