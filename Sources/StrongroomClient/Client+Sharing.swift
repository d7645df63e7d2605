// Strongroom — SPDX-License-Identifier: Apache-2.0

public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Lets `readerID` read this client's records of `type`, present and future: seals the type's access key to
    /// the reader and allows reading.
    ///
    /// - Throws: ``ClientError/Code/notFound`` for an unknown reader, ``ClientError/Code/tampered`` when the
    ///   reader's public key is malformed.
    public func share(type: String, readerID: UUID) async throws(ClientError) {
        let reader = ClientID(readerID).description
        try await sealWriterKey(type: type, to: reader)
        try await setPolicy(writerID: clientID, readerID: reader, type: type, PolicyRequest(allow: [.init(read: [:])]))
    }

    /// Stops `readerID` reading this client's records of `type`.
    ///
    /// By default the revoke is cryptographic (``rotateAccessKey(type:revoking:)``): a new key generation sealed to
    /// every remaining reader, committed by the server at once with the revocation, and this client's records
    /// re-wrapped under it, so the revoked reader — holding every key it ever had and a copy of the server's
    /// database — opens nothing written from now on. With `rotate: false` only the server's access control changes
    /// (reads denied, the reader's key deleted): weaker, since the reader keeps the key that opens every record
    /// written later under the type. A replicated type (`sr1.`) rotates without a re-wrap: its revisions are
    /// immutable and stay under the generation they were written in, which its readers reach through the links
    /// between generations.
    ///
    /// - Returns: what the rotation did; nil when nothing rotated.
    @discardableResult
    public func revoke(
        type: String,
        readerID: UUID,
        rotate: Bool = true
    ) async throws(ClientError)
        -> KeyRotationReport?
    {
        let reader = ClientID(readerID).description
        guard rotate, reader != clientID,
            try await hasWriterKey(type: type)
        else {
            try await setPolicy(
                writerID: clientID,
                readerID: reader,
                type: type,
                PolicyRequest(deny: [.init(read: [:])])
            )
            try await authenticated(
                .DELETE,
                E3DBPath.accessKey.render(clientID, clientID, reader, type),
                success: [200, 204]
            )
            return nil
        }
        return try await rotateAccessKey(type: type, revoking: [readerID])
    }

    /// Seals this client's key for `type` to another client (a reader or an authorizer); an existing EAK is kept.
    /// The EAK is fenced by the key's generation: should another device of this client have rotated the type, the
    /// server refuses the old key and the current one is fetched and sealed instead.
    func sealWriterKey(type: String, to otherClientID: String) async throws(ClientError) {
        let publicKey = try await publicKey(of: otherClientID)
        try await withCurrentKey(type: type) { key, generation throws(ClientError) in
            let eak = try await seal(
                key,
                writerID: clientID,
                type: type,
                generation: generation,
                readerID: otherClientID,
                classical: publicKey
            )
            try await storeEAK(eak, writerID: clientID, readerID: otherClientID, type: type, generation: generation)
        }
    }

    /// Another client's public information (keys), from the server, proven by its key log (unless verification is
    /// off): every key this client encrypts to or verifies with comes through here.
    func clientInfo(_ clientID: String, checkingContact: Bool = true) async throws(ClientError) -> ClientInfo {
        var path = E3DBPath.client.render(clientID)
        // The size of the checkpoint this client holds, so the answer carries the consistency proof from it.
        if configuration.keyLog.isEnabled, let held = try await keyLog.newestCheckpoint() {
            path += "?keylog_since=\(held.size)"
        }
        let info = try await authenticated(.GET, path, success: [200], as: ClientInfo.self)
        try await accept(info, for: clientID, checkingContact: checkingContact)
        return info
    }

    /// Checks `info`, the server's answer about `clientID` (``verifyKeys(of:for:checkingContact:)``), and makes the
    /// signing key it proves the one ``signingKey(of:)`` serves from now on (a post-quantum key or an access key wrap
    /// this client checks next is most likely signed by it).
    func accept(_ info: ClientInfo, for clientID: String, checkingContact: Bool) async throws(ClientError) {
        try await verifyKeys(of: info, for: clientID, checkingContact: checkingContact)
        if let writer = UUID(uuidString: info.clientID), writer != configuration.clientID,
            clientID.lowercased() == info.clientID.lowercased(), let key = try? info.signingPublicKey()
        {
            await writerSigningKeys.store(key, for: writer)
        }
    }

    /// Another client's public keys and status, from the server: what you need to verify a document it signed
    /// (``verify(signed:publicSigningKey:)``) or to check who you share with.
    ///
    /// - Throws: ``ClientError/Code/notFound`` for an unknown client; ``ClientError/Code/tampered`` when a key the
    ///   server returns is malformed; ``ClientError/Code/keyNotLogged`` and the key log's other verdicts when the
    ///   keys are not proven in its key log (``KeyLogVerification``).
    public func clientInfo(of clientID: UUID) async throws(ClientError) -> ClientPublicInfo {
        try await publicInfo(of: clientID, checkingContact: true)
    }

    /// ``clientInfo(of:)``, the contact check optional (a safety number is shown for a changed contact too).
    func publicInfo(of clientID: UUID, checkingContact: Bool) async throws(ClientError) -> ClientPublicInfo {
        let info = try await clientInfo(ClientID(clientID).description, checkingContact: checkingContact)
        guard UUID(uuidString: info.clientID) == clientID else {
            throw ClientError(.invalidResponse, "the server answered for another client")
        }
        do {
            return ClientPublicInfo(
                clientID: clientID,
                publicKey: try EncryptionPublicKey(base64URLEncoded: info.publicKey.curve25519 ?? ""),
                signingKey: try info.signingPublicKey(),
                isValidated: info.validated
            )
        } catch {
            throw ClientError(.tampered, "a public key of \(clientID) from the server is malformed", underlying: error)
        }
    }

    /// Another client's encryption public key, from the server.
    func publicKey(of otherClientID: String) async throws(ClientError) -> EncryptionPublicKey {
        try encryptionKey(in: try await clientInfo(otherClientID))
    }

    /// The encryption public key a (checked) client answer lists.
    func encryptionKey(in info: ClientInfo) throws(ClientError) -> EncryptionPublicKey {
        do {
            return try EncryptionPublicKey(base64URLEncoded: info.publicKey.curve25519 ?? "")
        } catch {
            throw ClientError(
                .tampered,
                "the other client's public key from the server is malformed",
                underlying: error
            )
        }
    }

    /// A writer's Ed25519 public key: this client's own, or the one the server lists (cached); nil when the writer
    /// registered without one.
    func signingKey(of writerID: UUID) async throws(ClientError) -> SigningPublicKey? {
        if writerID == configuration.clientID { return configuration.keys.signingKey.publicKey }
        if let cached = await writerSigningKeys.key(for: writerID) { return cached }
        let info = try await clientInfo(ClientID(writerID).description)
        let key: SigningPublicKey?
        do {
            key = try info.signingPublicKey()
        } catch {
            throw ClientError(.tampered, "the writer's signing key from the server is malformed", underlying: error)
        }
        if let key { await writerSigningKeys.store(key, for: writerID) }
        return key
    }

    /// Sets a sharing policy on `(writer, writer, reader, type)`.
    func setPolicy(writerID: String, readerID: String, type: String, _ policy: PolicyRequest) async throws(ClientError)
    {
        try await authenticated(
            .PUT,
            E3DBPath.policy.render(writerID, writerID, readerID, type),
            body: policy,
            success: [200, 201]
        )
    }
}

extension ClientInfo {
    /// The client's Ed25519 public key as the server lists it: nil when it registered without one.
    ///
    /// - Throws: when the listed key is malformed.
    func signingPublicKey() throws -> SigningPublicKey? {
        guard let text = signingKey?.ed25519, !text.isEmpty else { return nil }
        return try SigningPublicKey(base64URLEncoded: text)
    }
}
