// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomCrypto
public import StrongroomWire

/// Access keys checked against the key log's leaf per generation (docs/design/Revocation.md, "The key log").
extension Client {
    /// Checks `key`, which the server serves as the current key of `(writer, user, type)` at `generation` (nil when
    /// it named none), against the leaves logging the type's generations, each proven against a verified
    /// checkpoint.
    ///
    /// - Throws: ``ClientError/Code/keyWithheld`` when a leaf supersedes `key` (its successor tag is logged, now or
    ///   in a full scan this process made): the server serves an old generation as current;
    ///   ``ClientError/Code/keyNotLogged`` when the server names a rotated generation that no leaf logs, or a proof
    ///   fails.
    func verifyGeneration(
        of key: AccessKey,
        generation: Int?,
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError) {
        guard configuration.keyLog.isEnabled, let writer = UUID(uuidString: writerID),
            let user = UUID(uuidString: userID)
        else { return }
        let tag: UUID
        let commitment: KeyLogCommitment
        do {
            tag = try KeyGenerationLeaf.successorTag(of: key, writer: writer, user: user, type: type)
            commitment = try KeyGenerationLeaf.commitment(to: key, writer: writer, user: user, type: type)
        } catch {
            throw ClientError(.badRequest, "a record type is at most 1,024 bytes", underlying: error)
        }
        if await keyLog.isSuperseded(tag) { throw Self.withheld(type: type) }
        let leaves = try await generationLeaves(writerID: writerID, userID: userID, type: type)
        if leaves.contains(where: { $0.successorTag == tag }) { throw Self.withheld(type: type) }
        // A rotated generation must be logged; beyond the answer's bound the older leaves are not all there.
        if let generation, generation >= 2, leaves.count < KeyGenerationLeavesResponse.maximumLeaves,
            !leaves.contains(where: { $0.commitment == commitment })
        {
            throw ClientError(
                .keyNotLogged,
                "the server serves generation \(generation) of the access key for \"\(type)\", which its key log "
                    + "does not record"
            )
        }
    }

    /// The leaves logging the generations of `(writer, user, type)`, proven against a verified checkpoint; none
    /// from a server without the route.
    private func generationLeaves(
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError) -> [KeyGenerationLeaf] {
        let answer: KeyGenerationLeavesResponse
        do {
            answer = try await authenticated(
                .GET,
                E3DBPath.keyLogGenerations.render(writerID, userID, type),
                success: [200],
                as: KeyGenerationLeavesResponse.self
            )
        } catch {
            guard error.code == .notFound else { throw error }
            return []
        }
        guard answer.leaves.count <= KeyGenerationLeavesResponse.maximumLeaves else {
            throw ClientError(.invalidResponse, "a type's generation leaves are at most 1,000")
        }
        let checkpoint = try await acceptCheckpoint(answer.checkpoint)
        var leaves: [KeyGenerationLeaf] = []
        for leaf in answer.leaves {
            let entry = try Self.proven(leaf, proof: leaf.proof ?? [], against: checkpoint)
            guard let generation = KeyGenerationLeaf(entry) else {
                throw ClientError(.keyNotLogged, "the server gave a key log leaf that logs no generation")
            }
            leaves.append(generation)
        }
        return leaves
    }

    private static func withheld(type: String) -> ClientError {
        ClientError(
            .keyWithheld,
            "the key log records a newer generation of the access key for \"\(type)\" than the one the server "
                + "serves as current: the server is withholding a rotation"
        )
    }

    /// The successor tags of every key this client has cached, by tag (for ``monitorKeyLog()``).
    func cachedSuccessorTags() async -> [UUID: AccessKeyCache.Slot] {
        var tags: [UUID: AccessKeyCache.Slot] = [:]
        for (slot, key) in await accessKeys.all() {
            guard let writer = UUID(uuidString: slot.writerID), let user = UUID(uuidString: slot.userID),
                let tag = try? KeyGenerationLeaf.successorTag(of: key, writer: writer, user: user, type: slot.type)
            else { continue }
            tags[tag] = slot
        }
        return tags
    }
}

extension KeyRotationLogLeaf {
    /// The wire form of `leaf`, as a rotation request carries it (standard base64 of the tag's 16 bytes and the
    /// commitment's 32).
    public init(_ leaf: KeyGenerationLeaf) {
        self.init(
            successorTag: withUnsafeBytes(of: leaf.successorTag.uuid) { Data($0).base64EncodedString() },
            commitment: Data(leaf.commitment.bytes).base64EncodedString()
        )
    }
}
