// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client {
    /// The access key of `(writer, user, type)` as this client reads it: from the cache, or fetched and opened.
    ///
    /// - Throws: ``ClientError/Code/notFound`` when no key was shared with this client,
    ///   ``ClientError/Code/tampered`` when it does not open.
    func readerKey(writerID: String, userID: String, type: String) async throws(ClientError) -> AccessKey {
        try await readerKeyEntry(writerID: writerID, userID: userID, type: type).key
    }

    /// ``readerKey(writerID:userID:type:)`` with the generation the server named for it (nil when it named none).
    func readerKeyEntry(
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError)
        -> (key: AccessKey, generation: Int?)
    {
        if let cached = await accessKeys.entry(writerID: writerID, userID: userID, type: type) {
            return (cached.key, cached.generation)
        }
        return try await fetchKey(writerID: writerID, userID: userID, type: type)
    }

    /// Fetches and opens the EAK of `(writer, user, type)`, checks it against the key log's generation leaves
    /// (``verifyGeneration(of:generation:writerID:userID:type:)``) and caches it. A key the log shows superseded is
    /// fetched once more (a rotation may have committed between the two answers) before it is refused.
    private func fetchKey(
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError)
        -> (key: AccessKey, generation: Int?)
    {
        var attempt = 1
        while true {
            let (data, generation) = try await answer(
                .GET,
                E3DBPath.accessKey.render(writerID, userID, clientID, type),
                success: [200]
            )
            let response = try Transport.decode(AccessKeyResponse.self, from: data)
            let key = try await openAccessKey(response, writerID: writerID, type: type, generation: generation)
            do {
                try await verifyGeneration(
                    of: key,
                    generation: generation,
                    writerID: writerID,
                    userID: userID,
                    type: type
                )
            } catch  where error.code == .keyWithheld && attempt < 2 {
                attempt += 1
                continue
            }
            if writerID == clientID, userID == clientID {
                try await requireEntitledSealer(of: response, key: key, generation: generation, type: type)
            }
            let now = ContinuousClock.now
            await accessKeys.store(
                key,
                generation: generation,
                checked: now,
                writerID: writerID,
                userID: userID,
                type: type
            )
            return (key, generation)
        }
    }

    /// Checks who sealed this client's own key of `type`, the key it encrypts under: itself (only its private key
    /// seals to itself so), or — after an authorizer's rotation — a client whose key the key log proves for the
    /// authorizer ID named, with the key's generation logged. A server that seals a key of its own choosing to this
    /// client (with a key pair it made) would otherwise read everything written from then on: refused `tampered`,
    /// nothing sealed under it. An authorizer that replaced its keys since sealed with a key its proven key chain
    /// held. A configuration that trusts the server's keys (no key log) skips the check.
    func requireEntitledSealer(
        of response: AccessKeyResponse,
        key: AccessKey,
        generation: Int?,
        type: String
    ) async throws(ClientError) {
        if isSealedBySelf(response) { return }
        guard configuration.keyLog.isEnabled else { return }
        let sealer = try? EncryptionPublicKey(base64URLEncoded: response.authorizerPublicKey.curve25519 ?? "")
        let refused = ClientError(
            .tampered,
            "the server served this client's own key for \"\(type)\" sealed by a key no authorizer of it holds: "
                + "nothing was sealed under it"
        )
        guard let sealer, let authorizer = ClientID(response.authorizerID)?.description, authorizer != clientID
        else { throw refused }
        if try await publicKey(of: authorizer) != sealer {
            // Sealed before the authorizer replaced its keys: a key of its proven chain, signed over to the next.
            guard let id = UUID(uuidString: authorizer),
                try await provenKeyChain(of: id).links.contains(where: { $0.keys.encryption == sealer })
            else { throw refused }
        }
        // An authorizer only ever seals this client's key in a rotation, which logs the generation it makes.
        let rotated = max(generation ?? 2, 2)
        try await verifyGeneration(of: key, generation: rotated, writerID: clientID, userID: clientID, type: type)
    }

    /// Whether this client sealed the EAK `response` carries (its ID and its own key name the sealer): only its
    /// private key seals to it so, and a post-quantum wrap naming it as authorizer opens only under its signature
    /// (``openAccessKey(_:writerID:type:generation:)``).
    func isSealedBySelf(_ response: AccessKeyResponse) -> Bool {
        guard ClientID(response.authorizerID)?.description == clientID else { return false }
        let sealer = try? EncryptionPublicKey(base64URLEncoded: response.authorizerPublicKey.curve25519 ?? "")
        return sealer == configuration.keys.encryptionKey.publicKey
    }

    /// The header that fences a write sealed under `generation` (none when the server named no generation).
    static func fence(_ generation: Int?) -> [(String, String)] {
        generation.map { [(StrongroomHeader.keyGeneration, String($0))] } ?? []
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
    package func hasWriterKey(type: String) async throws(ClientError) -> Bool {
        do {
            _ = try await readerKey(writerID: clientID, userID: clientID, type: type)
            return true
        } catch  where error.code == .notFound {
            return false
        }
    }

    /// This client's own key for `type`, created and stored (sealed to itself) on first use.
    func writerKey(type: String) async throws(ClientError) -> AccessKey {
        try await writerKeyEntry(type: type).key
    }

    /// ``writerKey(type:)`` with its generation, for the fence on writes (``fence(_:)``).
    ///
    /// A cached key is checked against the key log again before it seals anything once
    /// ``KeyLogVerification/generationCheckInterval`` has passed since its last check: a rotation by another device
    /// that the server hides from this one (no fence) is found within that interval, and the current key fetched.
    func writerKeyEntry(type: String) async throws(ClientError) -> (key: AccessKey, generation: Int?) {
        if let cached = await accessKeys.entry(writerID: clientID, userID: clientID, type: type) {
            let now = ContinuousClock.now
            guard configuration.keyLog.isEnabled,
                cached.checked.map({ now - $0 >= configuration.keyLog.generationCheckInterval }) ?? true
            else { return (cached.key, cached.generation) }
            do {
                try await verifyGeneration(
                    of: cached.key,
                    generation: cached.generation,
                    writerID: clientID,
                    userID: clientID,
                    type: type
                )
                await accessKeys.markChecked(now, writerID: clientID, userID: clientID, type: type)
                return (cached.key, cached.generation)
            } catch  where error.code == .keyWithheld {
                await dropWriterKey(type: type)  // superseded: fetch the current one below
            }
        }
        do {
            return try await readerKeyEntry(writerID: clientID, userID: clientID, type: type)
        } catch  where error.code == .notFound {
            let key = AccessKey()
            // A type never keyed is at generation 1 (the server names it in its answer).
            let sealed = try await seal(key, writerID: clientID, type: type, generation: 1, readerID: clientID)
            let stored = try await putEAK(sealed, writerID: clientID, readerID: clientID, type: type, fence: nil)
            guard stored.created else {
                // Another process of this client created it first: use that one.
                return try await readerKeyEntry(writerID: clientID, userID: clientID, type: type)
            }
            await accessKeys.store(
                key,
                generation: stored.generation,
                checked: ContinuousClock.now,
                writerID: clientID,
                userID: clientID,
                type: type
            )
            return (key, stored.generation)
        }
    }

    /// Forgets this client's cached key for `type`, so the next use fetches the current generation.
    func dropWriterKey(type: String) async {
        await accessKeys.remove(writerID: clientID, userID: clientID, type: type)
    }

    /// Stores an EAK for `(writer, writer, reader, type)`; false when one was already there (the server's 409),
    /// which callers treat as "already shared". `generation`, when known, fences it: a type rotated past it is
    /// refused (``ClientError/isStaleKeyGeneration``) instead of sealing an old key to a new reader.
    @discardableResult
    func storeEAK(
        _ eak: SealedAccessKey,
        writerID: String,
        readerID: String,
        type: String,
        generation: Int? = nil
    ) async throws(ClientError)
        -> Bool
    {
        try await putEAK(eak, writerID: writerID, readerID: readerID, type: type, fence: generation).created
    }

    /// `PUT` of an EAK: whether it was created, and the type's generation the server named.
    private func putEAK(
        _ eak: SealedAccessKey,
        writerID: String,
        readerID: String,
        type: String,
        fence generation: Int?
    ) async throws(ClientError)
        -> (created: Bool, generation: Int?)
    {
        do {
            let (_, named) = try await answer(
                .PUT,
                E3DBPath.accessKey.render(writerID, writerID, readerID, type),
                headers: Self.fence(generation),
                body: AccessKeyPutRequest(eak: eak.eak, hybridEAK: eak.hybridEAK),
                success: [201]
            )
            return (true, named)
        } catch  where error.code == .conflict && !error.isStaleKeyGeneration {
            return (false, error.keyGeneration)
        }
    }
}
