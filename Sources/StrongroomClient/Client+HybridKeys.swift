// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Publishes this client's post-quantum (X-Wing) public key: signed with its Ed25519 key and recorded in the key
    /// log (docs/design/PostQuantum.md), so others can seal access keys to it. Keep `key`'s seed
    /// (`HybridPrivateKey.seedRepresentation`) with the client's other keys. Publishing the same key again is a
    /// no-op; another key replaces it.
    ///
    /// - Returns: The index of the key log leaf that records it.
    /// - Throws: ``ClientError/Code/badRequest`` when the server refuses it (a client registered without a signing
    ///   key cannot publish one).
    @discardableResult
    public func publishHybridKey(_ key: HybridPrivateKey) async throws(ClientError) -> UInt64 {
        let publicKey = key.publicKey
        let signed = HybridKeyLeaf.signedBytes(clientID: configuration.clientID, key: publicKey)
        let body = HybridKeyRequest(
            publicKey: Base64URL.encode(publicKey.rawRepresentation),
            signature: Base64URL.encode(configuration.keys.signingKey.signature(for: signed))
        )
        return try await authenticated(
            .PUT,
            E3DBPath.clientHybridKey.render(clientID),
            body: body,
            success: [200],
            as: KeyLogLeafResponse.self
        ).index
    }

    /// Another client's post-quantum public key, or nil when it published none: signed by a signing key of its
    /// proven key chain and, with key log verification on, proven by the leaf that records it — the newest this
    /// client has seen.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the key is malformed or not signed by the client;
    ///   ``ClientError/Code/keyNotLogged`` when the log does not record it; ``ClientError/Code/keyWithheld`` for a key
    ///   older than one this client saw; the key log's other verdicts.
    public func hybridPublicKey(of clientID: UUID) async throws(ClientError) -> HybridPublicKey? {
        var path = E3DBPath.clientHybridKey.render(ClientID(clientID).description)
        if configuration.keyLog.isEnabled, let held = try await keyLog.newestCheckpoint() {
            path += "?keylog_since=\(held.size)"
        }
        let response: HybridKeyResponse
        do {
            response = try await authenticated(.GET, path, success: [200], as: HybridKeyResponse.self)
        } catch {
            guard error.code == .notFound else { throw error }
            return nil
        }
        return try await verifiedHybridKey(response, of: clientID)
    }

    /// The key in `response`, checked as ``hybridPublicKey(of:)`` says.
    func verifiedHybridKey(
        _ response: HybridKeyResponse,
        of clientID: UUID
    ) async throws(ClientError)
        -> HybridPublicKey
    {
        guard response.clientID.lowercased() == ClientID(clientID).description else {
            throw ClientError(.invalidResponse, "the server answered for another client")
        }
        guard response.publicKey.utf8.count <= HybridKeyRequest.maximumKeyCharacters,
            response.signature.utf8.count <= 128,
            let bytes = try? Base64URL.decode(response.publicKey),
            let signature = try? Base64URL.decode(response.signature),
            let key = try? HybridPublicKey(rawRepresentation: bytes)
        else { throw ClientError(.tampered, "the post-quantum key the server gave for \(clientID) is malformed") }
        let signed = HybridKeyLeaf.signedBytes(clientID: clientID, key: key)
        // Its current signing key first (cached, most often just proven by a lookup), then its proven key chain.
        let current = try await signingKey(of: clientID)
        var valid = current?.isValidSignature(signature, for: signed) ?? false
        if !valid {
            let signers = try await signingKeyHistory(of: clientID).filter { $0 != current }
            valid = signers.contains { $0.isValidSignature(signature, for: signed) }
        }
        guard valid else {
            throw ClientError(
                .tampered,
                "the post-quantum key the server gave for \(clientID) is not signed by that client: nothing is sealed to it"
            )
        }
        guard configuration.keyLog.isEnabled else { return key }
        let entry = try await proven(response.keyLog)
        guard HybridKeyLeaf.binds(entry, clientID: clientID, key: key) else {
            throw ClientError(
                .keyNotLogged,
                "the post-quantum key the server gave for \(clientID) is not the one its key log records"
            )
        }
        try await keyLog.noteKeyLeaf(ClientID(clientID).description + "/hybrid", response.keyLog.index)
        return key
    }
}
