// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCrypto
package import StrongroomWire

/// Sharing policies and authorizers, and the four listings.
extension SQLServerStore {
    // MARK: Policies

    package func policy(for slot: AccessKeySlot) async throws -> StoredPolicy? {
        try await database.raw(
            """
            SELECT * FROM policies WHERE user_id = \(bind: slot.userID) AND writer_id = \(bind: slot.writerID)
            AND reader_id = \(bind: slot.readerID) AND type = \(bind: slot.type)
            """
        ).first().map(decodePolicy)
    }

    package func savePolicy(_ policy: StoredPolicy, logAt time: Timestamp) async throws {
        let kind: KeyLogEntry.Kind = policy.isAuthorizer ? .authorizerGranted : .authorizerRevoked
        let change = try PendingKeyLogLeaf.authorizer(
            kind,
            writerID: policy.writerID,
            userID: policy.userID,
            authorizerID: policy.readerID,
            type: policy.type,
            time: time
        )
        try await database.transaction { [engine] session in
            let wasAuthorizer =
                try await session.raw(
                    """
                    SELECT is_authorizer FROM policies WHERE user_id = \(bind: policy.userID)
                    AND writer_id = \(bind: policy.writerID) AND reader_id = \(bind: policy.readerID)
                    AND type = \(bind: policy.type)
                    """
                ).first()?.decode(column: "is_authorizer", as: Bool.self) ?? false
            try await session.raw(
                """
                INSERT INTO policies (user_id, writer_id, reader_id, type, can_read, is_authorizer, authorized_by,
                read_granted_by) VALUES (\(bind: policy.userID), \(bind: policy.writerID), \(bind: policy.readerID),
                \(bind: policy.type), \(bind: policy.canRead), \(bind: policy.isAuthorizer),
                \(bind: policy.authorizedBy), \(bind: policy.readGrantedBy))
                ON CONFLICT (user_id, writer_id, reader_id, type) DO UPDATE SET can_read = excluded.can_read,
                is_authorizer = excluded.is_authorizer, authorized_by = excluded.authorized_by,
                read_granted_by = excluded.read_granted_by
                """
            ).run()
            if wasAuthorizer != policy.isAuthorizer {
                try await Self.appendKeyLog([change], in: session, engine: engine)
            }
        }
    }

    package func clearAuthorizer(
        writerID: ClientID,
        userID: ClientID,
        authorizerID: ClientID,
        logAt time: Timestamp
    )
        async throws
    {
        let (writerID, userID, readerID) = (writerID.description, userID.description, authorizerID.description)
        try await database.transaction { [engine] session in
            let types = try await session.raw(
                """
                UPDATE policies SET is_authorizer = \(bind: false), authorized_by = NULL
                WHERE user_id = \(bind: userID) AND writer_id = \(bind: writerID) AND reader_id = \(bind: readerID)
                AND is_authorizer = \(bind: true) RETURNING type
                """
            ).all().map { try $0.decode(column: "type", as: String.self) }
            // Reads the authorizer granted itself go with it.
            try await session.raw(
                """
                UPDATE policies SET can_read = \(bind: false), read_granted_by = NULL
                WHERE user_id = \(bind: userID) AND writer_id = \(bind: writerID) AND reader_id = \(bind: readerID)
                AND read_granted_by = \(bind: readerID)
                """
            ).run()
            let revocations = try types.sorted().map { type in
                try PendingKeyLogLeaf.authorizer(
                    .authorizerRevoked,
                    writerID: writerID,
                    userID: userID,
                    authorizerID: readerID,
                    type: type,
                    time: time
                )
            }
            try await Self.appendKeyLog(revocations, in: session, engine: engine)
        }
    }

    package func readPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await listing(.byWriter(writerID), flag: "can_read", page: page)
    }

    package func readPolicies(readerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await listing(.byReader(readerID), flag: "can_read", page: page)
    }

    package func authorizerPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await listing(.byWriter(writerID), flag: "is_authorizer", page: page)
    }

    package func authorizerPolicies(authorizerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await listing(.byReader(authorizerID), flag: "is_authorizer", page: page)
    }

    /// Whose policies a listing shows: a writer's (ordered by reader) or a reader's (ordered by writer).
    private enum ListingSide {
        case byWriter(String)
        case byReader(String)
    }

    /// One page of the policies of `side` whose `flag` column is set.
    private func listing(_ side: ListingSide, flag: String, page: ListingPage) async throws -> [StoredPolicy] {
        let (column, id, order) =
            switch side {
            case .byWriter(let id): ("writer_id", id, "reader_id")
            case .byReader(let id): ("reader_id", id, "writer_id")
            }
        return try await database.raw(
            """
            SELECT * FROM policies WHERE \(unsafeRaw: column) = \(bind: id) AND \(unsafeRaw: flag) = \(bind: true)
            ORDER BY \(unsafeRaw: order), type LIMIT \(bind: page.limit) OFFSET \(bind: page.offset)
            """
        ).all().map(decodePolicy)
    }

    func decodePolicy(_ row: any SQLRow) throws -> StoredPolicy {
        StoredPolicy(
            userID: try row.decode(column: "user_id", as: String.self),
            writerID: try row.decode(column: "writer_id", as: String.self),
            readerID: try row.decode(column: "reader_id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            canRead: try row.decode(column: "can_read", as: Bool.self),
            isAuthorizer: try row.decode(column: "is_authorizer", as: Bool.self),
            authorizedBy: try row.decode(column: "authorized_by", as: String?.self),
            readGrantedBy: try row.decode(column: "read_granted_by", as: String?.self)
        )
    }
}
