// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Refuses text containing NUL (path segments, query parameters, credentials) with a 400.
func requireNoNUL(_ text: String, _ what: String) throws {
    guard !text.utf8.contains(0) else { throw ServerError.badRequest("\(what) must not contain NUL characters") }
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

/// The `{writer}/{user}/{type}` segments of an access-key route (400 for malformed IDs or a type out of bounds).
func requireAccessKeyScope(_ context: StrongroomRequestContext, _ limits: ServerLimits) throws -> AccessKeyScope {
    AccessKeyScope(
        writerID: try context.uuidSegment("writer"),
        userID: try context.uuidSegment("user"),
        type: try requireTypeSegment(try context.segment("type"), limits)
    )
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
