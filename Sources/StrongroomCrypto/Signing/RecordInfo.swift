// Strongroom — SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What an E3DB record signature covers: the record's meta, then its plaintext data.
///
/// Its canonical serialization is
/// `{"plain":{…},"type":"…","user_id":"…","writer_id":"…"}` followed directly by `{…data…}`, the same text as
/// e3db-swift's `DocInfo`, e3db-java's `LocalRecord.toSerialized()` and js-sdk's `RecordInfo.stringify()`.
/// IDs are lowercase UUIDs.
public struct RecordInfo: Signable, Hashable {
    /// The writer's client ID.
    public var writerID: UUID
    /// The user's client ID (the writer, in every official SDK).
    public var userID: UUID
    /// The record type.
    public var type: String
    /// The plaintext metadata (`{}` when there is none).
    public var plain: [String: String]
    /// The plaintext field values.
    public var data: [String: String]

    /// Describes a record for signing or verification.
    public init(writerID: UUID, userID: UUID, type: String, plain: [String: String] = [:], data: [String: String]) {
        self.writerID = writerID
        self.userID = userID
        self.type = type
        self.plain = plain
        self.data = data
    }

    public var signableComponents: [SignableValue] {
        [
            .object([
                "plain": .object(plain.mapValues(SignableValue.string)),
                "type": .string(type),
                "user_id": .string(userID.uuidString.lowercased()),
                "writer_id": .string(writerID.uuidString.lowercased()),
            ]),
            .object(data.mapValues(SignableValue.string)),
        ]
    }
}
