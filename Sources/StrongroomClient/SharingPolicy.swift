// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// A type this client shares with a reader (``Client/outgoingSharing()``).
public struct OutgoingSharingPolicy: Sendable, Hashable {
    /// The reader.
    public var readerID: UUID
    /// The reader's registered name, if the server knows it.
    public var readerName: String?
    /// The shared record type.
    public var type: String
}

/// A type another writer shares with this client (``Client/incomingSharing()``).
public struct IncomingSharingPolicy: Sendable, Hashable {
    /// The writer.
    public var writerID: UUID
    /// The writer's registered name, if the server knows it.
    public var writerName: String?
    /// The shared record type.
    public var type: String
}

/// An authorizer grant: `authorizerID` may share `type` on behalf of `writerID`.
public struct AuthorizerPolicy: Sendable, Hashable {
    /// The client allowed to share.
    public var authorizerID: UUID
    /// The writer whose records it may share.
    public var writerID: UUID
    /// The user of those records.
    public var userID: UUID
    /// The record type.
    public var type: String
    /// Who granted it.
    public var authorizedBy: UUID
}
