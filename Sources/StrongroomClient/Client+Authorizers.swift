// Strongroom — SPDX-License-Identifier: Apache-2.0

public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Lets `authorizerID` share this client's records of `type` with others, on its behalf (it gets the type's
    /// key and the authorizer grant; it cannot read the records unless also shared with).
    public func add(authorizerID: UUID, type: String) async throws(ClientError) {
        let authorizer = ClientID(authorizerID).description
        try await sealWriterKey(type: type, to: authorizer)
        try await setPolicy(
            writerID: clientID,
            readerID: authorizer,
            type: type,
            PolicyRequest(allow: [.init(authorizer: [:])])
        )
    }

    /// Withdraws an authorizer grant for `type`: the grant is denied, then the type's key is rotated
    /// (``rotateAccessKey(type:revoking:)``), so the authorizer — which held the key to seal it to others — opens
    /// nothing written afterwards, and every reader it shared with keeps reading under the new key. Shares it made
    /// stay until revoked.
    ///
    /// `rotate: false` only deletes the authorizer's key (weaker: it keeps the key every later record of the type is
    /// sealed under), as does a type this client holds no key of; the result is then nil. A replicated (`sr1.`) type
    /// rotates without a re-wrap: its revisions stay under their generation's key, reached through the links.
    @discardableResult
    public func remove(
        authorizerID: UUID,
        type: String,
        rotate: Bool = true
    ) async throws(ClientError)
        -> KeyRotationReport?
    {
        let authorizer = ClientID(authorizerID).description
        try await setPolicy(
            writerID: clientID,
            readerID: authorizer,
            type: type,
            PolicyRequest(deny: [.init(authorizer: [:])])
        )
        if rotate, authorizer != clientID, try await hasWriterKey(type: type) {
            return try await rotateAccessKey(type: type, revoking: [authorizerID])
        }
        try await authenticated(
            .DELETE,
            E3DBPath.accessKey.render(clientID, clientID, authorizer, type),
            success: [200, 204]
        )
        return nil
    }

    /// Withdraws every authorizer grant `authorizerID` holds for this client, all types at once: as
    /// ``remove(authorizerID:type:rotate:)`` for each type granted (the grant denied and the type's key rotated, or
    /// with `rotate: false` only the authorizer's key deleted), then any policy left.
    public func remove(authorizerID: UUID, rotate: Bool = true) async throws(ClientError) {
        let types = Set(try await authorizers().filter { $0.authorizerID == authorizerID }.map(\.type))
        for type in types.sorted() { try await remove(authorizerID: authorizerID, type: type, rotate: rotate) }
        try await authenticated(
            .DELETE,
            E3DBPath.readerPolicies.render(clientID, clientID, ClientID(authorizerID).description),
            success: [200, 204]
        )
    }

    /// As an authorizer of `writerID`, lets `readerID` read the writer's records of `type`: opens the writer's key
    /// (shared with this client by ``add(authorizerID:type:)``), seals it to the reader and allows reading.
    ///
    /// - Throws: ``ClientError/Code/notFound`` when this client is not (or no longer) an authorizer for the type,
    ///   ``ClientError/Code/forbidden`` when the grant was withdrawn.
    public func share(onBehalfOf writerID: UUID, type: String, readerID: UUID) async throws(ClientError) {
        let writer = ClientID(writerID).description
        let reader = ClientID(readerID).description
        let readerPublicKey = try await publicKey(of: reader)
        // Fenced by the key's generation, as the writer's own shares are: should the writer rotate meanwhile, the
        // server refuses the old key and the current one is fetched and sealed instead (three tries at most).
        var attempt = 1
        while true {
            await accessKeys.remove(writerID: writer, userID: writer, type: type)  // the grant may have changed
            let (key, generation) = try await readerKeyEntry(writerID: writer, userID: writer, type: type)
            let eak = try await seal(
                key,
                writerID: writer,
                type: type,
                generation: generation,
                readerID: reader,
                classical: readerPublicKey
            )
            do {
                try await storeEAK(eak, writerID: writer, readerID: reader, type: type, generation: generation)
                break
            } catch  where error.isStaleKeyGeneration && attempt < 3 {
                attempt += 1
            }
        }
        try await setPolicy(writerID: writer, readerID: reader, type: type, PolicyRequest(allow: [.init(read: [:])]))
    }

    /// As an authorizer of `writerID`, stops `readerID` reading the writer's records of `type`: its reads are denied
    /// at once, then the writer's key is rotated (docs/design/Revocation.md, "Revokes by an authorizer"): a fresh key
    /// sealed to the writer and every remaining reader and authorizer, the reader's key deleted, committed together,
    /// so the reader opens nothing the writer writes from now on. Only the writer changes its records: they stay
    /// under the older generation until the writer's ``finishKeyRotation(type:)`` re-wraps them (the report says
    /// ``KeyRotationReport/rewrapPending``); Strongroom readers read them meanwhile through the links.
    ///
    /// `rotate: false` only denies the reads and deletes the reader's key (weaker: it keeps the key every later
    /// record of the type is sealed under), as does a reader holding no key of the type; the result is then nil.
    ///
    /// - Throws: ``ClientError/Code/forbidden`` for the writer, this client or another authorizer of the type (an
    ///   authorizer revokes readers only).
    @discardableResult
    public func revoke(
        onBehalfOf writerID: UUID,
        type: String,
        readerID: UUID,
        rotate: Bool = true
    ) async throws(ClientError) -> KeyRotationReport? {
        let writer = ClientID(writerID).description
        let reader = ClientID(readerID).description
        try await setPolicy(writerID: writer, readerID: reader, type: type, PolicyRequest(deny: [.init(read: [:])]))
        if rotate, reader != clientID,
            let report = try await rotateKey(writerID: writer, type: type, revoking: [reader], onlyIfHeld: true)
        {
            return report
        }
        try await authenticated(
            .DELETE,
            E3DBPath.accessKey.render(writer, writer, reader, type),
            success: [200, 204]
        )
        return nil
    }

    /// The types this client shares, and with whom.
    public func outgoingSharing() async throws(ClientError) -> [OutgoingSharingPolicy] {
        let entries = try await authenticated(
            .GET,
            E3DBPath.outgoingPolicies.render(),
            success: [200],
            as: [OutgoingShare].self
        )
        return try entries.map { entry throws(ClientError) in
            OutgoingSharingPolicy(
                readerID: try uuid(entry.readerID),
                readerName: entry.readerName,
                type: entry.recordType
            )
        }
    }

    /// The types other writers share with this client.
    public func incomingSharing() async throws(ClientError) -> [IncomingSharingPolicy] {
        let entries = try await authenticated(
            .GET,
            E3DBPath.incomingPolicies.render(),
            success: [200],
            as: [IncomingShare].self
        )
        return try entries.map { entry throws(ClientError) in
            IncomingSharingPolicy(
                writerID: try uuid(entry.writerID),
                writerName: entry.writerName,
                type: entry.recordType
            )
        }
    }

    /// The authorizers this client has granted.
    public func authorizers() async throws(ClientError) -> [AuthorizerPolicy] {
        try await grants(E3DBPath.proxies.render())
    }

    /// The writers that made this client their authorizer.
    public func authorizedBy() async throws(ClientError) -> [AuthorizerPolicy] {
        try await grants(E3DBPath.granted.render())
    }

    private func grants(_ path: String) async throws(ClientError) -> [AuthorizerPolicy] {
        let entries = try await authenticated(.GET, path, success: [200], as: [AuthorizerGrant].self)
        return try entries.map { entry throws(ClientError) in
            AuthorizerPolicy(
                authorizerID: try uuid(entry.authorizerID),
                writerID: try uuid(entry.writerID),
                userID: try uuid(entry.userID),
                type: entry.recordType,
                authorizedBy: try uuid(entry.authorizedBy)
            )
        }
    }
}

/// A UUID from the server, or an invalid-response error.
func uuid(_ text: String) throws(ClientError) -> UUID {
    guard let value = UUID(uuidString: text) else {
        throw ClientError(.invalidResponse, "the server returned an ID that is not a UUID")
    }
    return value
}
