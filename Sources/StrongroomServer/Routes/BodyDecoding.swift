// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import NIOCore
import StrongroomCore
import StrongroomWire

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
