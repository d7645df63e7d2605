// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import StrongroomCore

/// Checks bodies and turns them into the stored JSON and back.
///
/// The stored form is canonical — keys sorted, no whitespace — so revision IDs are deterministic. `_id` and `_rev`
/// may appear in a body only with the document's own ID and the parent's revision ID; they are not stored. Every
/// other `_` field is refused (attachments, deletion and conflicts have their own API).
enum BodyCodec {
    /// The canonical JSON of `body`, and the body as stored (without `_id` and `_rev`).
    ///
    /// - Throws: ``DatastoreError/Code/invalidBody`` or ``DatastoreError/Code/documentTooLarge``.
    static func encode(
        _ body: [String: JSONValue],
        docID: String,
        revID: String?,
        limits: DatastoreLimits
    ) throws(DatastoreError) -> (json: Data, stored: [String: JSONValue]) {
        var stored = body
        for key in body.keys where key.hasPrefix("_") {
            switch key {
            case "_id" where body[key] == .string(docID): stored[key] = nil
            case "_rev" where revID.map({ body[key] == .string($0) }) ?? false: stored[key] = nil
            default:
                throw DatastoreError(.invalidBody, "a body may not hold the reserved field \(key.prefix(32))")
            }
        }
        try checkShape(stored, limits: limits)
        // The canonical writer is JSONEncoder's output byte for byte (CanonicalJSONTests), about ten times faster.
        let json = Data(CanonicalJSON.encode(stored))
        guard json.count <= limits.maximumDocumentBytes else {
            throw DatastoreError(.documentTooLarge, "a body is at most \(limits.maximumDocumentBytes) bytes of JSON")
        }
        return (json, stored)
    }

    /// The body of a value of your own type.
    ///
    /// - Throws: ``DatastoreError/Code/invalidBody`` when it does not encode as a JSON object.
    static func object(encoding value: some Encodable) throws(DatastoreError) -> [String: JSONValue] {
        do {
            return try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(value))
        } catch {
            throw DatastoreError(.invalidBody, "the value does not encode as a JSON object", underlying: error)
        }
    }

    /// A stored body.
    ///
    /// - Throws: ``DatastoreError/Code/storage`` when the stored JSON does not decode (a damaged file).
    static func decode(_ json: Data) throws(DatastoreError) -> [String: JSONValue] {
        // Straight from the bytes into JSONValue (JSONReader), about four times faster than JSONSerialization and
        // the conversion from its object graph.
        let result = json.withUnsafeBytes { bytes in
            Result { () throws(JSONReader.Malformed) in try JSONReader.object(from: bytes) }
        }
        guard case .success(let body) = result else {
            throw DatastoreError(.storage, "a stored body does not decode")
        }
        return body
    }

    /// Depth and number checks, with an explicit stack so that a deeply nested value cannot overflow ours.
    private static func checkShape(_ body: [String: JSONValue], limits: DatastoreLimits) throws(DatastoreError) {
        // Scalars at the top level (most of a typical body) are checked in place; only containers are queued.
        var pending: [(JSONValue, Int)] = []
        var visited = 0
        for value in body.values {
            switch value {
            case .array, .object: pending.append((value, 1))
            case .number(let number) where !number.isFinite:
                throw DatastoreError(.invalidBody, "a body holds a number that JSON cannot express")
            default: visited += 1
            }
        }
        while let (value, depth) = pending.popLast() {
            visited += 1
            guard visited <= limits.maximumDocumentBytes else {
                throw DatastoreError(.documentTooLarge, "a body has too many values")
            }
            switch value {
            case .number(let number) where !number.isFinite:
                throw DatastoreError(.invalidBody, "a body holds a number that JSON cannot express")
            case .array(let items):
                guard depth < limits.maximumDepth else { throw tooDeep(limits) }
                pending.append(contentsOf: items.lazy.map { ($0, depth + 1) })
            case .object(let members):
                guard depth < limits.maximumDepth else { throw tooDeep(limits) }
                pending.append(contentsOf: members.values.lazy.map { ($0, depth + 1) })
            default: continue
            }
        }
    }

    private static func tooDeep(_ limits: DatastoreLimits) -> DatastoreError {
        DatastoreError(.invalidBody, "a body nests at most \(limits.maximumDepth) levels deep")
    }
}
