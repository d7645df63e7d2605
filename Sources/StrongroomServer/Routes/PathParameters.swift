// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomWire

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

/// A UUID string in any case → lowercase canonical form, or nil.
func canonicalUUID(_ text: String) -> String? { UUID(uuidString: text)?.uuidString.lowercased() }
