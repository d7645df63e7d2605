// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import NIOCore
import StrongroomCore
import StrongroomWire

/// A JSON response.
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
    var fields = headers
    fields[.contentType] = "application/json"
    return Response(
        status: status,
        headers: fields,
        body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value)))
    )
}

/// A response of JSON already written as text (``SearchResponse/jsonText()``).
func jsonText(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: text)))
}

/// A ``RecordResponse`` of a whole record, with the stored data JSON written as it is (the same JSON a
/// `RecordResponse` encodes, without decoding and encoding every ciphertext again).
func recordJSON(_ stored: StoredRecordText, status: HTTPResponse.Status = .ok) -> Response {
    let head = #"{"meta":"# + stored.record.meta.jsonText + #","data":"#
    var tail = ""
    if let signature = stored.record.recordSignature {
        tail += #","rec_sig":"#
        JSONText.appendString(signature, to: &tail)
    }
    tail += "}"
    var buffer = ByteBuffer()
    buffer.reserveCapacity(head.utf8.count + stored.dataJSON.utf8.count + tail.utf8.count)
    buffer.writeString(head)
    buffer.writeString(stored.dataJSON)
    buffer.writeString(tail)
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    return Response(status: status, headers: fields, body: .init(byteBuffer: buffer))
}

/// An empty response.
func empty(_ status: HTTPResponse.Status) -> Response { Response(status: status) }
