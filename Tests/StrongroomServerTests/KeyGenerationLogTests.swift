// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StrongroomClient
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// A rotation's key log leaf (docs/design/Revocation.md, "The key log"): appended in the rotation's transaction,
/// served with its proof to the writer and to the type's holders, newest first, and to nobody else; a malformed one
/// refuses the whole rotation; the writer's commitments stay what they were.
@Suite struct KeyGenerationLogTests {
    typealias Rotation = AccessKeyRotationTests

    static func leaves(
        _ api: API,
        as caller: RegisteredClient,
        writer: RegisteredClient
    ) async throws -> (status: HTTPResponse.Status, leaves: [KeyGenerationLeaf], checkpoint: String?) {
        let path = "/v2/keylog/generations/\(writer.clientID)/\(writer.clientID)/\(Rotation.type)"
        let response = try await api.request(.get, path, authorization: "Bearer \(caller.token)")
        guard response.status == .ok else { return (response.status, [], nil) }
        let answer = try JSONDecoder().decode(KeyGenerationLeavesResponse.self, from: Data(buffer: response.body))
        let checkpoint = try LogCheckpoint(text: try SignedNote(parsing: answer.checkpoint).text)
        var leaves: [KeyGenerationLeaf] = []
        for leaf in answer.leaves {
            let bytes = try #require(Data(base64Encoded: leaf.entry))
            let proof = (leaf.proof ?? []).compactMap { Data(base64Encoded: $0).flatMap { MerkleHash(bytes: $0) } }
            #expect(proof.count == leaf.proof?.count)
            try MerkleProof.verifyInclusion(
                leaf: .leaf(bytes),
                index: leaf.index,
                treeSize: checkpoint.size,
                proof: proof,
                root: checkpoint.root
            )
            leaves.append(try #require(KeyGenerationLeaf(try KeyLogEntry(decoding: bytes))))
        }
        return (response.status, leaves, answer.checkpoint)
    }

    @Test(
        "logged with the rotation, proven, newest first; for the writer and holders only; malformed refused whole",
        arguments: TestEngine.available
    )
    func logged(engine: TestEngine) async throws {
        try await TestServer.run(engine: engine) { api in
            let writer = try await api.register("writer")
            let kept = try await api.register("kept")
            let revoked = try await api.register("revoked")
            let stranger = try await api.register("stranger")
            let keys = [AccessKey(), AccessKey(), AccessKey()]
            _ = try await api.writeRecord(as: writer, type: Rotation.type, fields: ["n": "1"], accessKey: keys[0])
            for reader in [writer, kept] {
                #expect(try await Rotation.putEAK(api, keys[0], to: reader, by: writer) == .created)
            }
            try await api.share(Rotation.type, from: writer, to: revoked, accessKey: keys[0])
            let (writerID, userID) = (
                try #require(UUID(uuidString: writer.clientID)), try #require(UUID(uuidString: writer.clientID))
            )
            // Never rotated: no leaf, for the writer and for a holder; nobody else may ask.
            #expect(try await Self.leaves(api, as: writer, writer: writer).leaves.isEmpty)
            #expect(try await Self.leaves(api, as: kept, writer: writer).status == .ok)
            #expect(try await Self.leaves(api, as: stranger, writer: writer).status == .notFound)
            let commitmentsBefore = try await api.request(
                .get,
                "/v2/keylog/commitments",
                authorization: "Bearer \(writer.token)"
            )
            #expect(commitmentsBefore.status == .ok)

            // A malformed leaf refuses the whole rotation: the generation stays.
            let first = try KeyGenerationLeaf(
                rotating: keys[0],
                to: keys[1],
                writer: writerID,
                user: userID,
                type: Rotation.type
            )
            let eaks = [Rotation.eak(keys[1], to: writer, by: writer), Rotation.eak(keys[1], to: kept, by: writer)]
            var malformed = KeyRotationLogLeaf(first)
            malformed.successorTag = Data(repeating: 1, count: 15).base64EncodedString()
            let refused = AccessKeyRotationRequest(
                generation: 2,
                eaks: eaks,
                revoke: [revoked.clientID],
                keyLog: malformed
            )
            #expect(try await Rotation.rotate(api, as: writer, writer: writer, refused) == 400)
            #expect(try await Rotation.generation(api, writer).generation == 1)

            let rotated = AccessKeyRotationRequest(
                generation: 2,
                eaks: eaks,
                revoke: [revoked.clientID],
                keyLog: KeyRotationLogLeaf(first)
            )
            #expect(try await Rotation.rotate(api, as: writer, writer: writer, rotated) == 201)
            let second = try KeyGenerationLeaf(
                rotating: keys[1],
                to: keys[2],
                writer: writerID,
                user: userID,
                type: Rotation.type
            )
            let again = AccessKeyRotationRequest(
                generation: 3,
                eaks: [Rotation.eak(keys[2], to: writer, by: writer), Rotation.eak(keys[2], to: kept, by: writer)],
                revoke: [],
                keyLog: KeyRotationLogLeaf(second)
            )
            #expect(try await Rotation.rotate(api, as: writer, writer: writer, again) == 201)

            // Newest first, each proven; the same for the remaining holder; the revoked reader holds no EAK now.
            let served = try await Self.leaves(api, as: writer, writer: writer)
            #expect(served.leaves == [second, first])
            #expect(try await Self.leaves(api, as: kept, writer: writer).leaves == [second, first])
            #expect(try await Self.leaves(api, as: revoked, writer: writer).status == .notFound)
            // The chain: whoever holds key n finds the leaf of n + 1 by its tag; the commitment names the new key.
            #expect(
                served.leaves[1].successorTag
                    == (try KeyGenerationLeaf.successorTag(
                        of: keys[0],
                        writer: writerID,
                        user: userID,
                        type: Rotation.type
                    ))
            )
            #expect(
                served.leaves[0].commitment
                    == (try KeyGenerationLeaf.commitment(
                        to: keys[2],
                        writer: writerID,
                        user: userID,
                        type: Rotation.type
                    ))
            )
            // The writer's commitments answer is not broken by leaves without a salt.
            let commitments = try await api.request(
                .get,
                "/v2/keylog/commitments",
                authorization: "Bearer \(writer.token)"
            )
            #expect(commitments.status == .ok)
            let opened = try JSONDecoder().decode(KeyLogCommitmentsResponse.self, from: Data(buffer: commitments.body))
            #expect(
                opened.commitments.allSatisfy {
                    (try? KeyLogEntry(decoding: Data(base64Encoded: $0.leaf.entry) ?? Data()))?.kind != .keyRotated
                }
            )
        }
    }
}
