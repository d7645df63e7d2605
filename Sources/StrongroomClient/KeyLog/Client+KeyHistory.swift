// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// A client's chain of keys as its key log proves it: the registration, then each key change signed by the keys it
/// left and the keys it took.
struct ProvenKeyChain: Sendable {
    /// One key leaf.
    struct Link: Sendable {
        var index: UInt64
        var entry: KeyLogEntry
        var keys: KeyLogEntry.Keys
    }

    /// The checkpoint every leaf was proven against (nil when verification is off and nothing was proven).
    var checkpoint: LogCheckpoint?
    /// Oldest first; never empty.
    var links: [Link]

    /// The signing keys the client has had, newest first.
    var signingKeys: [SigningPublicKey] { links.reversed().compactMap(\.keys.signing) }
}

extension Client {
    /// `clientID`'s key history from the server, each leaf proven against a verified checkpoint (when verification
    /// is on), chained (each change naming the leaf before it), each change's two signatures valid over the keys it
    /// left and took, and no key taken twice.
    ///
    /// - Throws: ``ClientError/Code/keyNotLogged`` when the history is missing, unproven or not one chain;
    ///   ``ClientError/Code/keyCompromised`` when a change is not signed by the keys on both sides of it or takes a
    ///   key back: keys named for the client by someone who did not hold its keys.
    func provenKeyChain(of clientID: UUID, proving: Bool? = nil) async throws(ClientError) -> ProvenKeyChain {
        let answer: KeyLogHistoryResponse
        do {
            answer = try await authenticated(
                .GET,
                E3DBPath.keyLogClient.render(ClientID(clientID).description),
                success: [200],
                as: KeyLogHistoryResponse.self
            )
        } catch {
            guard error.code == .notFound else { throw error }
            throw ClientError(.keyNotLogged, "client \(clientID)'s registration is not in the server's key log")
        }
        guard answer.leaves.count <= 1_000 else {
            throw ClientError(.invalidResponse, "a key history has at most 1,000 leaves")
        }
        let verifying = proving ?? configuration.keyLog.isEnabled
        let checkpoint = verifying ? try await acceptCheckpoint(answer.checkpoint) : nil
        var links: [ProvenKeyChain.Link] = []
        var encryptionKeys: Set<EncryptionPublicKey> = []
        var signingKeys: Set<SigningPublicKey> = []
        for leaf in answer.leaves {
            let entry =
                if let checkpoint {
                    try Self.proven(leaf, proof: leaf.proof ?? [], against: checkpoint)
                } else {
                    try Self.unproven(leaf)
                }
            guard entry.clientID == clientID, let keys = entry.keys else {
                throw ClientError(.keyNotLogged, "the server's key history for \(clientID) holds another entry")
            }
            guard keys.previous == links.last?.index else {
                throw ClientError(.keyNotLogged, "\(clientID)'s key leaves do not form one chain in the log")
            }
            guard encryptionKeys.insert(keys.encryption).inserted,
                keys.signing.map({ signingKeys.insert($0).inserted }) ?? true
            else {
                throw ClientError(
                    .keyCompromised,
                    "the key log binds a key \(clientID) held before to it again (leaf \(leaf.index))"
                )
            }
            if let previous = links.last {
                try Self.checkChange(leaf, from: previous.keys, to: keys, of: clientID)
            }
            links.append(ProvenKeyChain.Link(index: leaf.index, entry: entry, keys: keys))
        }
        guard !links.isEmpty else {
            throw ClientError(.keyNotLogged, "client \(clientID)'s registration is not in the server's key log")
        }
        return ProvenKeyChain(checkpoint: checkpoint, links: links)
    }

    /// A change's two signatures over the keys it left and took.
    private static func checkChange(
        _ leaf: KeyLogLeaf,
        from old: KeyLogEntry.Keys,
        to new: KeyLogEntry.Keys,
        of clientID: UUID
    ) throws(ClientError) {
        let refused = ClientError(
            .keyCompromised,
            "the key log changes \(clientID)'s keys (leaf \(leaf.index)) without the signatures of the keys it left "
                + "and took: someone who did not hold its keys named new ones"
        )
        guard let oldSigning = old.signing, let newSigning = new.signing, let signatures = leaf.keyChange,
            signatures.old.utf8.count <= 128, signatures.new.utf8.count <= 128,
            let oldSignature = try? Base64URL.decode(signatures.old),
            let newSignature = try? Base64URL.decode(signatures.new)
        else { throw refused }
        do {
            try KeyChangeStatement(
                clientID: clientID,
                old: (old.encryption, oldSigning),
                new: (new.encryption, newSigning)
            ).verify(old: oldSignature, new: newSignature)
        } catch {
            throw refused
        }
    }

    /// A leaf's entry, unproven (key log verification off).
    private static func unproven(_ leaf: KeyLogLeaf) throws(ClientError) -> KeyLogEntry {
        guard let bytes = Data(base64Encoded: leaf.entry), bytes.count <= 128,
            let entry = try? KeyLogEntryCache.shared.entry(decoding: bytes)
        else { throw ClientError(.keyNotLogged, "a key log leaf from the server is malformed") }
        return entry
    }

    /// Every signing key `writerID` has had, newest first, from its proven key chain: a record signed before its
    /// writer changed keys verifies under the key it had then.
    func signingKeyHistory(of writerID: UUID) async throws(ClientError) -> [SigningPublicKey] {
        try await provenKeyChain(of: writerID).signingKeys
    }
}
