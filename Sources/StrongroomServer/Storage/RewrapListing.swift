// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// `GET /v2/storage/access_keys/{writer}/{user}/{type}/rewrap?after=N`: the writer's records of a type as a re-wrap
/// reads them (docs/design/Revocation.md, "The bulk re-wrap"): each record's ID, version and stored fields, and
/// whether it is a file, without the metadata and inline keys a search carries.
package enum RewrapListing {
    /// One record.
    package struct Entry: Sendable, Hashable {
        package var index: Int64
        package var recordID: String
        package var version: String
        /// The stored fields as their JSON text (`{}` for a file).
        package var dataJSON: String
        package var isFile: Bool

        package init(index: Int64, recordID: String, version: String, dataJSON: String, isFile: Bool) {
            (self.index, self.recordID, self.version, self.dataJSON, self.isFile) =
                (index, recordID, version, dataJSON, isFile)
        }
    }

    /// The answer as JSON text: `{"records":[{"record_id","version","data","file"}…],"last_index"}`, the stored
    /// fields written as they are stored (the server wrote them as JSON).
    package static func jsonText(_ entries: [Entry], after index: Int64) -> String {
        var text = #"{"records":["#
        text.reserveCapacity(entries.reduce(64) { $0 + $1.dataJSON.utf8.count + 128 })
        for (position, entry) in entries.enumerated() {
            if position > 0 { text += "," }
            text += #"{"record_id":"#
            JSONText.appendString(entry.recordID, to: &text)
            text += #","version":"#
            JSONText.appendString(entry.version, to: &text)
            text += #","data":"# + entry.dataJSON + #","file":"# + (entry.isFile ? "true" : "false") + "}"
        }
        text += #"],"last_index":"# + String(entries.last?.index ?? index) + "}"
        return text
    }
}
