// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCrypto
package import StrongroomWire

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

    package func replaceAccessKey(_ key: StoredAccessKey, logAt time: Timestamp) async throws {
        let slot = AccessKeySlot(writerID: key.writerID, userID: key.userID, readerID: key.readerID, type: key.type)
        let grant = try PendingKeyLogLeaf.access(.accessGranted, slot, time: time)
        try await database.transaction { [engine] session in
            let previous = try await session.raw(
                """
                SELECT eak FROM access_keys WHERE writer_id = \(bind: key.writerID) AND user_id = \(bind: key.userID)
                AND reader_id = \(bind: key.readerID) AND type = \(bind: key.type)
                """
            ).first()?.decode(column: "eak", as: String.self)
            try await session.raw(
                """
                INSERT INTO access_keys (writer_id, user_id, reader_id, type, eak, authorizer_id)
                VALUES (\(bind: key.writerID), \(bind: key.userID), \(bind: key.readerID), \(bind: key.type),
                \(bind: key.eak), \(bind: key.authorizerID))
                ON CONFLICT (writer_id, user_id, reader_id, type) DO UPDATE
                SET eak = excluded.eak, authorizer_id = excluded.authorizer_id
                """
            ).run()
            if previous != key.eak, key.readerID != key.writerID {
                try await Self.appendKeyLog([grant], in: session, engine: engine)
            }
        }
    }

    package func deleteAccessKey(in slot: AccessKeySlot, logAt time: Timestamp) async throws {
        let revocation = try PendingKeyLogLeaf.access(.accessRevoked, slot, time: time)
        try await database.transaction { [engine] session in
            let deleted = try await session.raw(
                """
                DELETE FROM access_keys WHERE writer_id = \(bind: slot.writerID) AND user_id = \(bind: slot.userID)
                AND reader_id = \(bind: slot.readerID) AND type = \(bind: slot.type) RETURNING eak
                """
            ).first()
            if deleted != nil, slot.readerID != slot.writerID {
                try await Self.appendKeyLog([revocation], in: session, engine: engine)
            }
        }
    }
}
