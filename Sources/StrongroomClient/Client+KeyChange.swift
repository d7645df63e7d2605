// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client.Configuration {
    /// This configuration with fresh keys and a fresh API secret: what ``Client/rotateKeys(to:)`` replaces the
    /// client's with. Save it (a profile, the keychain) before the call: once the server takes it, the current
    /// configuration's secret and keys no longer work.
    public func replacingKeys() -> Client.Configuration {
        var next = self
        next.keys = .generate()
        next.apiSecret = SecureBytes(copying: Array(SecureRandom.data(count: 32).hexString.utf8))
        return next
    }
}

/// What ``Client/rotateKeys(to:)`` did.
public struct KeyChangeReport: Sendable {
    /// The configuration the client now has: its new keys and API secret.
    public var configuration: Client.Configuration
    /// The key log leaf that logs the change.
    public var leafIndex: UInt64
    /// The access keys this client holds that were re-sealed to its new key.
    public var accessKeysRewrapped: Int
    /// This client's own types whose access key it rotated, so the old private key opens nothing written later.
    public var typesRotated: [String]
    /// Own types whose rotation did not finish (the error says why): rotate each again with
    /// ``Client/rotateAccessKey(type:revoking:)`` on a client of ``configuration``.
    public var rotationsPending: [String: ClientError]
    /// Why the new X-Wing key was not published (publish it with ``Client/publishHybridKey(_:)`` on a client of
    /// ``configuration``); nil when it was, or the configuration has none.
    public var hybridKeyPending: ClientError? = nil
}

extension Client {
    /// Replaces this client's keys with fresh ones (and its API secret): ``rotateKeys(to:)`` with
    /// ``Configuration/replacingKeys()``.
    ///
    /// The new configuration exists only in the report: if the call fails after the server took it, the client
    /// is locked out. Prefer ``rotateKeys(to:)`` with a configuration saved first.
    public func rotateKeys() async throws(ClientError) -> KeyChangeReport {
        try await rotateKeys(to: configuration.replacingKeys())
    }

    /// Replaces this client's X25519 and Ed25519 keys, and its API secret, with `replacement`'s — after a device
    /// is lost or a key may have leaked (the article "Replacing a client's keys").
    ///
    /// In one request the server takes the new keys, every access key this client holds (as a reader, an
    /// authorizer or the writer) re-sealed to the new key, and a `keysChanged` key log leaf that the old and the new
    /// signing key both signed; tokens issued before are refused from then on. Then every type this client writes
    /// rotates to a new access key generation sealed only to current keys, so the old private key opens nothing
    /// written afterwards. Sharers find the new key through the key log; access keys this client sealed for others
    /// keep opening under the key that sealed them.
    ///
    /// Save `replacement` before calling: the server refuses the current credentials once it took the new ones. A
    /// retry of the same `replacement` after a lost answer is accepted as the change it already made.
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when `replacement` is not this client's (ID, API key,
    ///   server) or keeps a key; ``ClientError/Code/tampered`` when an access key this client holds does not open
    ///   (or its own key is sealed by a key no authorizer holds); ``ClientError/Code/badRequest`` for a client
    ///   holding more than 10,000 access keys, or without a signing key; ``ClientError/Code/conflict`` when what it
    ///   holds kept changing.
    public func rotateKeys(to replacement: Configuration) async throws(ClientError) -> KeyChangeReport {
        guard replacement.clientID == configuration.clientID, replacement.apiKeyID == configuration.apiKeyID,
            replacement.apiURL == configuration.apiURL
        else {
            throw ClientError(.invalidConfiguration, "a key change keeps the client's ID, API key ID and server")
        }
        guard replacement.keys.encryptionKey.publicKey != configuration.keys.encryptionKey.publicKey,
            replacement.keys.signingKey.publicKey != configuration.keys.signingKey.publicKey
        else { throw ClientError(.invalidConfiguration, "a key change takes a new encryption and signing key") }
        var held: [HeldAccessKey] = []
        var leaf: UInt64?
        for attempt in 1...3 {
            held = try await heldAccessKeys()
            let request = try await keyChangeRequest(to: replacement, held: held)
            do {
                leaf =
                    try await authenticated(
                        .POST,
                        E3DBPath.clientKeys.render(clientID),
                        body: request,
                        success: [200],
                        as: KeyLogLeafResponse.self
                    )
                    .index
                break
            } catch {
                // Shared, revoked or rotated meanwhile: list again.
                guard error.code == .conflict, attempt < 3 else { throw error }
            }
        }
        guard let leaf else { throw ClientError(.conflict, "the keys this client holds kept changing") }
        let next = Client(configuration: replacement, sharing: transport)
        let hybridKeyPending = await next.publishOwnHybridKey()
        let (rotated, pending) = await next.rotateOwnTypes(in: held)
        return KeyChangeReport(
            configuration: replacement,
            leafIndex: leaf,
            accessKeysRewrapped: held.count,
            typesRotated: rotated,
            rotationsPending: pending,
            hybridKeyPending: hybridKeyPending
        )
    }

    /// Rotates every type this client writes, again: what ``rotateKeys(to:)`` does after the server took the new
    /// keys, for a client of the new configuration whose key change stopped before its rotations finished (which of
    /// them ran is not known; another rotation is harmless).
    ///
    /// - Throws: ``ClientError/Code/keyCompromised`` (and the audit's other verdicts) when the key log does not show
    ///   this client's keys as its newest.
    public func finishKeyChange() async throws(ClientError) -> KeyChangeReport {
        let history = try await auditKeys()
        let hybridKeyPending = await publishOwnHybridKey()
        let (rotated, pending) = await rotateOwnTypes(in: try await heldAccessKeys())
        return KeyChangeReport(
            configuration: configuration,
            leafIndex: history.entries.last?.index ?? 0,
            accessKeysRewrapped: 0,
            typesRotated: rotated,
            rotationsPending: pending,
            hybridKeyPending: hybridKeyPending
        )
    }

    /// Publishes this configuration's X-Wing key (a no-op when published already); the error when it fails, nil
    /// when it was published or there is none.
    func publishOwnHybridKey() async -> ClientError? {
        guard let hybrid = configuration.keys.hybridKey else { return nil }
        do {
            try await publishHybridKey(hybrid)
            return nil
        } catch {
            return error
        }
    }

    /// Rotates each of this client's own types among `held`.
    private func rotateOwnTypes(in held: [HeldAccessKey]) async -> ([String], [String: ClientError]) {
        var rotated: [String] = []
        var pending: [String: ClientError] = [:]
        for type in Set(held.filter { $0.writerID == clientID && $0.userID == clientID }.map(\.type)).sorted() {
            do {
                try await rotateAccessKey(type: type)
                rotated.append(type)
            } catch {
                pending[type] = error
            }
        }
        return (rotated, pending)
    }

    /// Every access key this client holds, from the server's pages.
    private func heldAccessKeys() async throws(ClientError) -> [HeldAccessKey] {
        var held: [HeldAccessKey] = []
        while true {
            let page = try await authenticated(
                .GET,
                E3DBPath.heldAccessKeys.render() + "?start=\(held.count)",
                success: [200],
                as: HeldAccessKeysResponse.self
            )
            guard page.keys.count <= HeldAccessKeysResponse.maximumPage else {
                throw ClientError(.invalidResponse, "a page of held access keys has at most 1,000")
            }
            held += page.keys
            guard held.count <= KeyChangeRequest.maximumRewrapped else {
                throw ClientError(
                    .badRequest,
                    "this client holds more than \(KeyChangeRequest.maximumRewrapped) access keys: "
                        + "a key change re-wraps at most that many"
                )
            }
            if page.keys.count < HeldAccessKeysResponse.maximumPage { return held }
        }
    }

    /// `key`, held as `entry`, sealed by the replacement keys to themselves in the same forms: the classical EAK where
    /// the slot has one, the post-quantum wrap (signed by the new signing key) where it has one.
    private static func rewrapped(
        _ key: AccessKey,
        _ entry: HeldAccessKey,
        to replacement: Configuration
    ) throws(ClientError) -> RewrappedAccessKey {
        let newKeys = replacement.keys
        let eak =
            entry.accessKey.eak.isEmpty
            ? "" : key.sealed(to: newKeys.encryptionKey.publicKey, by: newKeys.encryptionKey).wireFormat
        var hybridEAK: String?
        if entry.accessKey.hybridEAK != nil || eak.isEmpty {
            guard let hybrid = newKeys.hybridKey else {
                throw ClientError(
                    .postQuantumKeyMissing,
                    "the key of \(entry.writerID)'s type \"\(entry.type)\" is sealed post-quantum and the replacement "
                        + "keys have no X-Wing key"
                )
            }
            do {
                let writer = try uuid(entry.writerID)
                let context = HybridAccessKeyWrap.Context(
                    writerID: writer,
                    userID: try uuid(entry.userID),
                    readerID: replacement.clientID,
                    type: entry.type,
                    generation: UInt64(max(entry.generation, 1))
                )
                hybridEAK = try HybridAccessKeyWrap(
                    sealing: key,
                    to: hybrid.publicKey,
                    context: context,
                    signedBy: newKeys.signingKey
                ).wireFormat
            } catch {
                throw ClientError(.invalidConfiguration, "the post-quantum wrap could not be made", underlying: error)
            }
        }
        return RewrappedAccessKey(
            writerID: entry.writerID,
            userID: entry.userID,
            type: entry.type,
            eak: eak,
            hybridEAK: hybridEAK,
            generation: entry.generation
        )
    }

    /// The signed change and every held key opened with the current key and re-sealed to the new one.
    private func keyChangeRequest(
        to replacement: Configuration,
        held: [HeldAccessKey]
    ) async throws(ClientError) -> KeyChangeRequest {
        let newKeys = replacement.keys
        var rewrapped: [RewrappedAccessKey] = []
        rewrapped.reserveCapacity(held.count)
        for entry in held {
            let key: AccessKey
            do {
                key = try await openAccessKey(
                    entry.accessKey,
                    writerID: entry.writerID,
                    type: entry.type,
                    generation: entry.generation
                )
            } catch  where error.code != .postQuantumKeyMissing {
                throw ClientError(
                    .tampered,
                    "the access key of \(entry.writerID)'s type \"\(entry.type)\" does not open with this client's "
                        + "key, so it cannot be re-wrapped: ask its writer to share it again",
                    underlying: error
                )
            }
            // This client's own key is taken only as a fetch takes it (who sealed it, its generation).
            if entry.writerID == clientID, entry.userID == clientID {
                try await requireEntitledSealer(
                    of: entry.accessKey,
                    key: key,
                    generation: entry.generation,
                    type: entry.type
                )
            }
            rewrapped.append(
                try Self.rewrapped(key, entry, to: replacement)
            )
        }
        let statement = KeyChangeStatement(
            clientID: configuration.clientID,
            old: (configuration.keys.encryptionKey.publicKey, configuration.keys.signingKey.publicKey),
            new: (newKeys.encryptionKey.publicKey, newKeys.signingKey.publicKey)
        )
        let signatures: (old: Data, new: Data)
        do {
            signatures = try statement.signatures(old: configuration.keys.signingKey, new: newKeys.signingKey)
        } catch {
            throw ClientError(.invalidConfiguration, "the key change could not be signed", underlying: error)
        }
        let secretChanged = !ConstantTime.equals(
            replacement.apiSecret.withUnsafeBytes { Array($0) },
            configuration.apiSecret.withUnsafeBytes { Array($0) }
        )
        return KeyChangeRequest(
            publicKey: PublicKeyObject(curve25519: newKeys.encryptionKey.publicKey.base64URLEncoded),
            signingKey: SigningKeyObject(ed25519: newKeys.signingKey.publicKey.base64URLEncoded),
            oldSignature: Base64URL.encode(signatures.old),
            newSignature: Base64URL.encode(signatures.new),
            apiSecret: secretChanged
                ? replacement.apiSecret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } : nil,
            rewrapped: rewrapped
        )
    }
}
