// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// A reader's keys to seal an access key to, each proven as its own lookup proves it.
struct SealingKeys: Sendable, Equatable {
    /// Its X25519 key (the classical EAK's).
    var classical: EncryptionPublicKey
    /// Its X-Wing key; nil when it published none.
    var hybrid: HybridPublicKey?
}

extension Client {
    /// The keys to seal to for `readers` (other clients), asked 1,000 at a time with
    /// `POST /v2/storage/clients/sealing_keys` instead of two lookups per reader, and checked entry by entry exactly
    /// as ``clientInfo(_:checkingContact:)`` and ``hybridPublicKey(of:)`` check theirs (key log proofs against one
    /// checkpoint, the X-Wing key's signature, a verified contact's safety number). Nil when the server has no such
    /// route (one built before it): the caller then looks each reader up.
    ///
    /// - Throws: ``ClientError/Code/notFound`` for a reader the server does not know;
    ///   ``ClientError/Code/invalidResponse`` for an answer about a client not asked about, or twice; the checks'
    ///   verdicts (``ClientError/Code/tampered``, ``ClientError/Code/keyNotLogged``, …).
    func sealingKeys(of readers: [String]) async throws(ClientError) -> [String: SealingKeys]? {
        var keys: [String: SealingKeys] = [:]
        for chunk in readers.map({ $0.lowercased() }).chunked(into: SealingKeysRequest.maximumClients) {
            let asked = Set(chunk)
            let since = configuration.keyLog.isEnabled ? try await keyLog.newestCheckpoint()?.size : nil
            let response: SealingKeysResponse
            do {
                response = try await authenticated(
                    .POST,
                    E3DBPath.sealingKeys.render(),
                    body: SealingKeysRequest(clientIDs: Array(asked).sorted(), keyLogSince: since),
                    success: [200],
                    as: SealingKeysResponse.self
                )
            } catch let error where error.code == .notFound {
                return nil  // the route is missing; an unknown reader is left out of a 200 instead
            }
            for entry in response.clients {
                let id = entry.client.clientID.lowercased()
                guard asked.contains(id), keys[id] == nil, let uuid = UUID(uuidString: id) else {
                    throw ClientError(
                        .invalidResponse,
                        "the server answered for a client the rotation did not ask about"
                    )
                }
                try await accept(entry.client, for: id, checkingContact: true)
                let classical = try encryptionKey(in: entry.client)
                let hybrid: HybridPublicKey?
                if let response = entry.hybridKey {
                    hybrid = try await verifiedHybridKey(response, of: uuid)
                } else {
                    hybrid = nil
                }
                keys[id] = SealingKeys(classical: classical, hybrid: hybrid)
            }
            if let missing = asked.first(where: { keys[$0] == nil }) {
                throw ClientError(.notFound, "the server knows no client \(missing)")
            }
        }
        return keys
    }
}
