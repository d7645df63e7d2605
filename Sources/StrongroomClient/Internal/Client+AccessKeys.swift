// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client {
    /// The access key of `(writer, user, type)` as this client reads it: from the cache, or fetched and opened.
    ///
    /// - Throws: ``ClientError/Code/notFound`` when no key was shared with this client,
    ///   ``ClientError/Code/tampered`` when it does not open.
    func readerKey(writerID: String, userID: String, type: String) async throws(ClientError) -> AccessKey {
        if let cached = await accessKeys.key(writerID: writerID, userID: userID, type: type) { return cached }
        let response = try await authenticated(
            .GET,
            E3DBPath.accessKey.render(writerID, userID, clientID, type),
            success: [200],
            as: AccessKeyResponse.self
        )
        let key = try open(response)
        await accessKeys.store(key, writerID: writerID, userID: userID, type: type)
        return key
    }

    /// Opens an EAK sent by the server (fetched or inline in a search).
    func open(_ response: AccessKeyResponse) throws(ClientError) -> AccessKey {
        do {
            let authorizer = try EncryptionPublicKey(base64URLEncoded: response.authorizerPublicKey.curve25519 ?? "")
            return try EncryptedAccessKey(wireFormat: response.eak).open(
                authorizerPublicKey: authorizer,
                readerPrivateKey: configuration.keys.encryptionKey
            )
        } catch {
            throw ClientError(.tampered, "an access key from the server did not open", underlying: error)
        }
    }

    /// Whether this client has a key for `type` (it wrote or shared the type before); creates none.
    func hasWriterKey(type: String) async throws(ClientError) -> Bool {
        do {
            _ = try await readerKey(writerID: clientID, userID: clientID, type: type)
            return true
        } catch  where error.code == .notFound {
            return false
        }
    }

    /// This client's own key for `type`, created and stored (sealed to itself) on first use.
    func writerKey(type: String) async throws(ClientError) -> AccessKey {
        do {
            return try await readerKey(writerID: clientID, userID: clientID, type: type)
        } catch  where error.code == .notFound {
            let key = AccessKey()
            let eak = key.sealed(to: configuration.keys.encryptionKey.publicKey, by: configuration.keys.encryptionKey)
            guard try await storeEAK(eak, writerID: clientID, readerID: clientID, type: type) else {
                // Another process of this client created it first: use that one.
                return try await readerKey(writerID: clientID, userID: clientID, type: type)
            }
            await accessKeys.store(key, writerID: clientID, userID: clientID, type: type)
            return key
        }
    }

    /// Stores an EAK for `(writer, writer, reader, type)`; false when one was already there (the server's 409),
    /// which callers treat as "already shared".
    @discardableResult
    func storeEAK(
        _ eak: EncryptedAccessKey,
        writerID: String,
        readerID: String,
        type: String
    ) async throws(ClientError)
        -> Bool
    {
        do {
            try await authenticated(
                .PUT,
                E3DBPath.accessKey.render(writerID, writerID, readerID, type),
                body: AccessKeyPutRequest(eak: eak.wireFormat),
                success: [201]
            )
            return true
        } catch  where error.code == .conflict {
            return false
        }
    }
}
