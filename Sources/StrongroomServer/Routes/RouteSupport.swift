// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import NIOCore
import StrongroomCore
import StrongroomWire
import Synchronization

/// Reads the body (up to the context's limit) and decodes JSON, whatever the `Content-Type` says (the Go SDK
/// sends none). Oversize → 413, malformed → 400; neither reveals the body.
func decodeBody<T: Decodable>(_ type: T.Type, _ request: Request, _ context: StrongroomRequestContext) async throws -> T
{
    let buffer: ByteBuffer
    do {
        buffer = try await request.body.collect(upTo: context.maxUploadSize)
    } catch is NIOTooManyBytesError {
        throw ServerError.tooLarge("the request body is larger than \(context.maxUploadSize) bytes")
    }
    guard !containsEscapedNUL(buffer.readableBytesView) else {
        throw ServerError.badRequest("NUL characters are not accepted")
    }
    if let readable = T.self as? any PlainJSONReadable.Type,
        let value = buffer.readableBytesView.withContiguousStorageIfAvailable(readable.plainJSON) ?? nil,
        let value = value as? T
    {
        return value
    }
    do {
        return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch let error as DecodingError {
        throw ServerError.badRequest("malformed JSON body: \(describe(error))")
    } catch {
        throw ServerError.badRequest("malformed JSON body")
    }
}

/// Whether JSON text holds a `\u0000` escape inside a string (lexing escapes properly, so `\\u0000` is not one).
/// Databases refuse NUL in text (PostgreSQL), so such input is a 400 at the door rather than a 500 later.
func containsEscapedNUL(_ bytes: some Collection<UInt8>) -> Bool {
    if let found = bytes.withContiguousStorageIfAvailable(containsEscapedNUL) { return found }
    return Array(bytes).withUnsafeBufferPointer(containsEscapedNUL)
}

/// The scan itself: `memchr` jumps from backslash to backslash (ciphertext, base64url, has none), and each escape
/// is stepped over whole so that an escaped backslash cannot start another.
private func containsEscapedNUL(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = text.baseAddress else { return false }
    var index = 0
    while index < text.count {
        guard let found = memchr(base + index, Int32(UInt8(ascii: "\\")), text.count - index) else { return false }
        index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        if index + 5 < text.count, text[index + 1] == UInt8(ascii: "u"),
            text[(index + 2)...(index + 5)].allSatisfy({ $0 == UInt8(ascii: "0") })
        {
            return true
        }
        index += 2
    }
    return false
}

/// Refuses text containing NUL (path segments, query parameters, credentials) with a 400.
func requireNoNUL(_ text: String, _ what: String) throws {
    guard !text.utf8.contains(0) else { throw ServerError.badRequest("\(what) must not contain NUL characters") }
}

/// A short description of a decoding failure that names the field, never its content.
private func describe(_ error: DecodingError) -> String {
    switch error {
    case .keyNotFound(let key, _): "missing \(key.stringValue)"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
    case .dataCorrupted(let context):
        context.codingPath.isEmpty
            ? "not JSON" : "bad value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
    @unknown default: "undecodable"
    }
}

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

extension StrongroomRequestContext {
    /// A path segment, percent-decoded (after the router split the path on `/`).
    func segment(_ name: String) throws -> String {
        guard let raw = parameters.get(name) else { throw ServerError.notFound() }
        // Most segments (IDs) hold no escapes: skip Foundation's decoder for them (it is slow on every request).
        let decoded = raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding ?? raw : raw
        try requireNoNUL(decoded, "a path segment")
        return decoded
    }

    /// A path segment that must be a record ID, or 404.
    func recordID(_ name: String) throws -> RecordID {
        guard let id = RecordID(try segment(name)) else { throw ServerError.notFound("no such item") }
        return id
    }

    /// A path segment that must be a client ID, or 404.
    func clientID(_ name: String) throws -> ClientID {
        guard let id = ClientID(try segment(name)) else { throw ServerError.notFound("no such item") }
        return id
    }

    /// A path segment that must be a UUID (any case); the lowercase form, or 404.
    func uuidSegment(_ name: String) throws -> String {
        guard let id = UUID(uuidString: try segment(name)) else { throw ServerError.notFound("no such item") }
        return id.uuidString.lowercased()
    }
}

/// A record or file type: 1 to `maximumNameBytes` UTF-8 bytes (400 otherwise).
func requireType(_ type: String?, _ limits: ServerLimits) throws -> String {
    guard let type, !type.isEmpty, type.utf8.count <= limits.maximumNameBytes else {
        throw ServerError.badRequest("meta.type is required (1 to \(limits.maximumNameBytes) bytes)")
    }
    return type
}

/// A type in a path segment (policies, access keys): at most `maximumNameBytes` UTF-8 bytes.
func requireTypeSegment(_ type: String, _ limits: ServerLimits) throws -> String {
    guard !type.isEmpty, type.utf8.count <= limits.maximumNameBytes else {
        throw ServerError.badRequest("a record type is 1 to \(limits.maximumNameBytes) bytes")
    }
    return type
}

/// `meta.plain`: at most `maximumPlainBytes` of keys and values (400 otherwise).
func requirePlain(_ plain: [String: String]?, _ limits: ServerLimits) throws {
    var bytes = 0
    for (key, value) in plain ?? [:] {
        bytes += key.utf8.count + value.utf8.count + 6
        guard bytes <= limits.maximumPlainBytes else {
            throw ServerError.badRequest("meta.plain is larger than \(limits.maximumPlainBytes) bytes")
        }
    }
}

/// A UUID string in any case → lowercase canonical form, or nil.
func canonicalUUID(_ text: String) -> String? { UUID(uuidString: text)?.uuidString.lowercased() }
