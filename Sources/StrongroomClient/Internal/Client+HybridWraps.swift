// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// An access key sealed for one reader as the type's ``PostQuantumPolicy`` asks: the classical EAK (empty under
/// `require`) and the post-quantum wrap (nil under `off`, or for a reader without an X-Wing key under `prefer`).
struct SealedAccessKey: Sendable, Hashable {
    var eak: String
    var hybridEAK: String?
}

extension Client {
    /// Seals `key`, of `writerID`'s `type` at `generation`, to `readerID` as this client's policy for the type says,
    /// signing the post-quantum wrap with this client's signing key (the authorizer's, as the reader checks it).
    ///
    /// - Parameters:
    ///   - classical: the reader's X25519 key, already proven (nil: this client).
    ///   - proven: the reader's keys, already proven (``sealingKeys(of:)``): its X-Wing key is not looked up again.
    /// - Throws: ``ClientError/Code/postQuantumKeyMissing`` under `require` when the reader has no X-Wing key; the
    ///   key log's verdicts on the reader's X-Wing key.
    func seal(
        _ key: AccessKey,
        writerID: String,
        type: String,
        generation: Int?,
        readerID: String,
        classical: EncryptionPublicKey? = nil,
        proven: SealingKeys? = nil
    ) async throws(ClientError) -> SealedAccessKey {
        let mode = configuration.postQuantum.mode(for: type)
        let readerKey = classical ?? configuration.keys.encryptionKey.publicKey
        let eak = { key.sealed(to: readerKey, by: self.configuration.keys.encryptionKey).wireFormat }
        guard mode != .off else { return SealedAccessKey(eak: eak(), hybridEAK: nil) }
        let hybrid: HybridPublicKey?
        if readerID == clientID {
            hybrid = configuration.keys.hybridKey?.publicKey
        } else if let proven {
            hybrid = proven.hybrid
        } else {
            hybrid = try await hybridPublicKey(of: try uuid(readerID))
        }
        guard let hybrid else {
            guard mode == .prefer else {
                throw ClientError(
                    .postQuantumKeyMissing,
                    readerID == clientID
                        ? "\"\(type)\" is sealed post-quantum only and this client's configuration has no X-Wing key"
                        : "\"\(type)\" is sealed post-quantum only and \(readerID) published no X-Wing key: "
                            + "nothing was shared with it"
                )
            }
            return SealedAccessKey(eak: eak(), hybridEAK: nil)
        }
        let wrap: HybridAccessKeyWrap
        do {
            wrap = try HybridAccessKeyWrap(
                sealing: key,
                to: hybrid,
                context: try wrapContext(writerID: writerID, readerID: readerID, type: type, generation: generation),
                signedBy: configuration.keys.signingKey
            )
        } catch {
            throw ClientError(.invalidConfiguration, "the post-quantum wrap could not be made", underlying: error)
        }
        return SealedAccessKey(eak: mode == .require ? "" : eak(), hybridEAK: wrap.wireFormat)
    }

    /// This configuration's X-Wing key, to open a key of `type` sealed post-quantum only.
    ///
    /// - Throws: ``ClientError/Code/postQuantumKeyMissing`` when the configuration has none.
    func ownHybridKey(opening type: String) throws(ClientError) -> HybridPrivateKey {
        guard let own = configuration.keys.hybridKey else {
            throw ClientError(
                .postQuantumKeyMissing,
                "the key of \"\(type)\" is sealed post-quantum only and this configuration has no X-Wing key"
            )
        }
        return own
    }

    /// What a wrap binds: the slot `(writer, writer, reader, type)` and the key's generation (1 when none is named).
    func wrapContext(
        writerID: String,
        readerID: String,
        type: String,
        generation: Int?
    ) throws(ClientError) -> HybridAccessKeyWrap.Context {
        let generation = generation ?? 1
        guard generation >= 1 else { throw ClientError(.invalidResponse, "a key generation is from 1") }
        let writer = try uuid(writerID)
        return HybridAccessKeyWrap.Context(
            writerID: writer,
            userID: writer,
            readerID: try uuid(readerID),
            type: type,
            generation: UInt64(generation)
        )
    }

    /// Opens the access key `response` carries for this client: the post-quantum wrap when there is one and this
    /// configuration has an X-Wing key (signed by a signing key of the authorizer's proven key chain, bound to this
    /// slot and `generation`), the classical EAK otherwise — refused for a type whose policy requires the wrap.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the wrap does not verify or open, or the classical EAK does not
    ///   open; ``ClientError/Code/postQuantumKeyMissing`` for a key sealed post-quantum only to a configuration
    ///   without an X-Wing key.
    func openAccessKey(
        _ response: AccessKeyResponse,
        writerID: String,
        type: String,
        generation: Int?
    ) async throws(ClientError) -> AccessKey {
        // A server that names no generation (one built before rotation, or a proxy that drops the header) leaves the
        // wrap's context unknown: the classical EAK serves where there is one; a wrap alone is tried at each
        // generation up to ``unnamedGenerationSearch`` (a signature check each, no decapsulation).
        let unnamed =
            generation == nil && !response.eak.isEmpty && !configuration.postQuantum.refusesClassicalOnly(type)
        guard let text = response.hybridEAK, let own = configuration.keys.hybridKey, !unnamed else {
            if response.eak.isEmpty {
                guard response.hybridEAK != nil else {
                    throw ClientError(.tampered, "the server served an empty access key for \"\(type)\"")
                }
                _ = try ownHybridKey(opening: type)  // a wrap alone, and no X-Wing key to open it
            }
            if configuration.postQuantum.refusesClassicalOnly(type) {
                throw ClientError(
                    .tampered,
                    "the server served the key of \"\(type)\" sealed with X25519 alone, where this client's policy "
                        + "requires the post-quantum wrap: it was not used"
                )
            }
            return try open(response)
        }
        let refused = ClientError(
            .tampered,
            "the post-quantum wrap of \"\(type)\" from the server does not verify or open: it was not used"
        )
        guard let authorizer = UUID(uuidString: response.authorizerID) else { throw refused }
        var signers: [SigningPublicKey]
        if authorizer == configuration.clientID {
            signers = [configuration.keys.signingKey.publicKey]
        } else {
            signers = try await signingKey(of: authorizer).map { [$0] } ?? []
        }
        let open = { (signers: [SigningPublicKey]) throws(ClientError) -> AccessKey? in
            try self.openWrap(text, with: own, writerID: writerID, type: type, generation: generation, signers: signers)
        }
        if let key = try open(signers) { return key }
        // Signed before the authorizer replaced its keys: any signing key of its proven chain.
        guard authorizer != configuration.clientID else { throw refused }
        if let key = try open(try await signingKeyHistory(of: authorizer).filter { !signers.contains($0) }) {
            return key
        }
        throw refused
    }

    /// The key the wrap `text` seals to this client (`own`, its X-Wing key), signed by one of `signers` for
    /// `writerID`'s `type` at `generation` — or at any generation up to ``unnamedGenerationSearch`` when none is
    /// named; nil when no signer signed it so.
    ///
    /// - Throws: ``ClientError/Code/tampered`` for a wrap that is malformed, or signed but not opening.
    func openWrap(
        _ text: String,
        with own: HybridPrivateKey,
        writerID: String,
        type: String,
        generation: Int?,
        signers: [SigningPublicKey]
    ) throws(ClientError) -> AccessKey? {
        let refused = ClientError(
            .tampered,
            "the post-quantum wrap of \"\(type)\" does not verify or open: it was not used"
        )
        guard text.utf8.count == AccessKeyPutRequest.hybridEAKCharacters,
            let wrap = try? HybridAccessKeyWrap(wireFormat: text)
        else { throw refused }
        var contexts: [HybridAccessKeyWrap.Context] = []
        for candidate in generation.map({ [$0] }) ?? Array(1...Self.unnamedGenerationSearch) {
            contexts.append(try wrapContext(writerID: writerID, readerID: clientID, type: type, generation: candidate))
        }
        for signer in signers {
            for context in contexts {
                do {
                    return try wrap.open(with: own, context: context, authorizer: signer)
                } catch  where error.code == .invalidSignature {
                    continue  // not this signer, or not this context
                } catch {
                    throw refused  // signed for this client and context, yet it does not open
                }
            }
        }
        return nil
    }

    /// The generations a wrap is tried at when the server names none.
    static let unnamedGenerationSearch = 1_024
}
