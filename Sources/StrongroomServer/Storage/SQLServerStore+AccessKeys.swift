// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomWire

/// Encrypted access keys, one per (writer, user, reader, type) slot.
extension SQLServerStore {
    // MARK: Access keys

    package func accessKey(in slot: AccessKeySlot) async throws -> StoredAccessKey? {
        try await database.raw(
            """
            SELECT * FROM access_keys WHERE writer_id = \(bind: slot.writerID) AND user_id = \(bind: slot.userID)
            AND reader_id = \(bind: slot.readerID) AND type = \(bind: slot.type)
            """
        ).first().map { row in
            StoredAccessKey(
                writerID: try row.decode(column: "writer_id", as: String.self),
                userID: try row.decode(column: "user_id", as: String.self),
                readerID: try row.decode(column: "reader_id", as: String.self),
                type: try row.decode(column: "type", as: String.self),
                eak: try row.decode(column: "eak", as: String.self),
                authorizerID: try row.decode(column: "authorizer_id", as: String.self)
            )
        }
    }

    package func insertAccessKey(_ key: StoredAccessKey) async throws -> Bool {
        try await database.raw(
            """
            INSERT INTO access_keys (writer_id, user_id, reader_id, type, eak, authorizer_id)
            VALUES (\(bind: key.writerID), \(bind: key.userID), \(bind: key.readerID), \(bind: key.type),
            \(bind: key.eak), \(bind: key.authorizerID))
            ON CONFLICT (writer_id, user_id, reader_id, type) DO NOTHING RETURNING eak
            """
        ).first() != nil
    }

    package func replaceAccessKey(_ key: StoredAccessKey) async throws {
        try await database.raw(
            """
            INSERT INTO access_keys (writer_id, user_id, reader_id, type, eak, authorizer_id)
            VALUES (\(bind: key.writerID), \(bind: key.userID), \(bind: key.readerID), \(bind: key.type),
            \(bind: key.eak), \(bind: key.authorizerID))
            ON CONFLICT (writer_id, user_id, reader_id, type) DO UPDATE
            SET eak = excluded.eak, authorizer_id = excluded.authorizer_id
            """
        ).run()
    }

    package func deleteAccessKey(in slot: AccessKeySlot) async throws {
        try await database.raw(
            """
            DELETE FROM access_keys WHERE writer_id = \(bind: slot.writerID) AND user_id = \(bind: slot.userID)
            AND reader_id = \(bind: slot.readerID) AND type = \(bind: slot.type)
            """
        ).run()
    }
}
