// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

extension Client {
    /// This client's access key for `type` (created if needed), sealed to itself, for offline encryption.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the server hands over another key than the one it proved for the
    ///   type (a key it chose would let it read what is encrypted offline).
    public func createWriterKey(type: String) async throws(ClientError) -> EAKInfo {
        let key = try await writerKey(type: type)
        let info = try await getReaderKey(writerID: configuration.clientID, userID: configuration.clientID, type: type)
        guard try open(offline: info, writerID: clientID, type: type) == key else {
            throw ClientError(
                .tampered,
                "the server handed over another key for \"\(type)\" than the one it proved: nothing was returned"
            )
        }
        return info
    }

    /// The access key of `(writerID, userID, type)` as this client may open it, for offline decryption.
    public func getReaderKey(writerID: UUID, userID: UUID, type: String) async throws(ClientError) -> EAKInfo {
        let path =
            E3DBPath.accessKey.render(ClientID(writerID).description, ClientID(userID).description, clientID, type)
        let (data, generation) = try await answer(.GET, path, success: [200])
        return try EAKInfo(try Transport.decode(AccessKeyResponse.self, from: data), generation: generation)
    }

    /// Opens `info` offline: its classical EAK, or — for a type that keeps none — its post-quantum wrap, signed by
    /// this client or by the writer whose signing key `info` names (the authorizer must be one of them offline).
    func open(offline info: EAKInfo, writerID: String, type: String) throws(ClientError) -> AccessKey {
        guard info.eak.isEmpty, let text = info.hybridEAK else { return try open(info.wire) }
        let own = try ownHybridKey(opening: type)
        var signers: [SigningPublicKey] = []
        if info.authorizerID == configuration.clientID {
            signers.append(configuration.keys.signingKey.publicKey)
        } else if info.authorizerID == info.signerID, let text = info.signerSigningKey,
            let key = try? SigningPublicKey(base64URLEncoded: text)
        {
            signers.append(key)
        }
        guard
            let key = try openWrap(
                text,
                with: own,
                writerID: writerID,
                type: type,
                generation: info.generation,
                signers: signers
            )
        else {
            throw ClientError(
                .tampered,
                "the post-quantum wrap of \"\(type)\" is not signed by this client or the writer: it was not used"
            )
        }
        return key
    }

    /// Encrypts `data` offline with the key in `eakInfo` and signs the document with this client's signing key.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when `eakInfo` does not open with this client's key.
    public func encrypt(
        type: String,
        data: [String: String],
        eakInfo: EAKInfo,
        plain: [String: String] = [:]
    ) throws(ClientError)
        -> EncryptedDocument
    {
        let key = try open(offline: eakInfo, writerID: clientID, type: type)
        let meta = EncryptedDocument.ClientMeta(
            writerID: configuration.clientID,
            userID: configuration.clientID,
            type: type,
            plain: plain
        )
        let signature = configuration.keys.signingKey.signature(for: RecordInfo(meta, data: data))
        return EncryptedDocument(
            meta: meta,
            data: FieldCipher.encrypt(fields: data, with: key),
            recordSignature: Base64URL.encode(signature)
        )
    }

    /// Decrypts a document offline and verifies its signature with the writer's key in `eakInfo`.
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when `eakInfo` has no signer key,
    ///   ``ClientError/Code/tampered`` when the key does not open, a field does not decrypt, or the signature does
    ///   not verify. No plaintext is returned then.
    public func decrypt(
        encryptedDocument document: EncryptedDocument,
        eakInfo: EAKInfo
    ) throws(ClientError)
        -> [String: String]
    {
        guard let signer = eakInfo.signerSigningKey else {
            throw ClientError(.invalidConfiguration, "decrypting a document needs the signer's signing key in eakInfo")
        }
        let key = try open(
            offline: eakInfo,
            writerID: ClientID(document.meta.writerID).description,
            type: document.meta.type
        )
        do {
            let data = try FieldCipher.decrypt(fields: document.data, with: key)
            let signature = try Base64URL.decode(document.recordSignature)
            try SigningPublicKey(base64URLEncoded: signer).verify(signature, for: RecordInfo(document.meta, data: data))
            return data
        } catch {
            throw ClientError(
                .tampered,
                "the document did not decrypt or its signature did not verify",
                underlying: error
            )
        }
    }

    /// Signs any `Signable` document with this client's signing key.
    public func sign<Document: Signable>(document: Document) -> SignedDocument<Document> {
        SignedDocument(signing: document, with: configuration.keys.signingKey)
    }

    /// Verifies a signed document with the signer's public key.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the signature does not verify.
    public func verify<Document: Signable>(
        signed: SignedDocument<Document>,
        publicSigningKey: SigningPublicKey
    )
        throws(ClientError)
    {
        do {
            try signed.verify(with: publicSigningKey)
        } catch {
            throw ClientError(.tampered, "the signature does not verify", underlying: error)
        }
    }
}

extension RecordInfo {
    init(_ meta: EncryptedDocument.ClientMeta, data: [String: String]) {
        self.init(writerID: meta.writerID, userID: meta.userID, type: meta.type, plain: meta.plain, data: data)
    }
}
