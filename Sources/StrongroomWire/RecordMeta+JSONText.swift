// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

extension RecordMeta {
    /// The meta as JSON text, with the members ``encode(to:)`` writes (`file_meta` only for a file), written by
    /// hand: the server answers every record read and write with it, and `JSONEncoder` cost more than the rest of
    /// the answer.
    package var jsonText: String {
        var text = ""
        text.reserveCapacity(256)
        text += #"{"record_id":"#
        JSONText.appendString(recordID, to: &text)
        text += #","writer_id":"#
        JSONText.appendString(writerID, to: &text)
        text += #","user_id":"#
        JSONText.appendString(userID, to: &text)
        text += #","type":"#
        JSONText.appendString(type, to: &text)
        text += #","plain":"#
        JSONText.appendStringMap(plain, to: &text)
        text += #","created":""# + created.description + #"","last_modified":""# + lastModified.description + "\""
        text += #","version":"#
        JSONText.appendString(version, to: &text)
        if let fileMeta {
            text += #","file_meta":{"checksum":"#
            JSONText.appendString(fileMeta.checksum, to: &text)
            text += #","compression":"#
            JSONText.appendString(fileMeta.compression, to: &text)
            text += #","size":"# + String(fileMeta.size) + #","file_url":"#
            JSONText.appendOptionalString(fileMeta.fileURL, to: &text)
            text += #","file_name":"#
            JSONText.appendOptionalString(fileMeta.fileName, to: &text)
            text += "}"
        }
        text += "}"
        return text
    }
}
