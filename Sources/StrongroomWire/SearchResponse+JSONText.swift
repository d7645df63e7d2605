// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

extension SearchResponse {
    /// The answer as JSON text, with the members ``SearchResult/encode(to:)`` writes, written by hand: a page of
    /// 1,000 hits through `JSONEncoder` cost a quarter of the server's time in a rotation's re-wrap, most of it the
    /// same inline access key encoded again for every hit (here once per distinct key).
    package func jsonText() throws -> String {
        var keys: [AccessKeyResponse: String] = [:]
        var text = #"{"results":["#
        text.reserveCapacity(results.count * 512)
        for (index, result) in results.enumerated() {
            if index > 0 { text += "," }
            text += #"{"meta":"# + result.meta.jsonText + #","record_data":"#
            if let data = result.recordData { JSONText.appendStringMap(data, to: &text) } else { text += "null" }
            text += #","access_key":"#
            if let key = result.accessKey {
                if let encoded = keys[key] {
                    text += encoded
                } else {
                    let encoded = String(decoding: try JSONEncoder().encode(key), as: UTF8.self)
                    keys[key] = encoded
                    text += encoded
                }
            } else {
                text += "null"
            }
            if let signature = result.recordSignature {
                text += #","rec_sig":"#
                JSONText.appendString(signature, to: &text)
            }
            text += "}"
        }
        text += #"],"last_index":"# + String(lastIndex) + "}"
        return text
    }
}
