// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

extension RecordWriteRequest {
    /// The request as JSON text with the members `JSONEncoder` writes (an absent optional is left out), written by
    /// hand: the SDK sends one with every record write and update, and `JSONEncoder` cost a twentieth of the SDK's
    /// time per write.
    package var jsonText: String {
        var text = ""
        text.reserveCapacity(256 + (data?.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 } ?? 0))
        text += #"{"meta":{"#
        var separator = ""
        for (key, value) in [("writer_id", meta.writerID), ("user_id", meta.userID), ("type", meta.type)] {
            guard let value else { continue }
            text += separator + "\"" + key + "\":"
            JSONText.appendString(value, to: &text)
            separator = ","
        }
        if let plain = meta.plain {
            text += separator + #""plain":"#
            JSONText.appendStringMap(plain, to: &text)
        }
        text += "}"
        if let data {
            text += #","data":"#
            JSONText.appendStringMap(data, to: &text)
        }
        if let recordSignature {
            text += #","rec_sig":"#
            JSONText.appendString(recordSignature, to: &text)
        }
        text += "}"
        return text
    }
}
