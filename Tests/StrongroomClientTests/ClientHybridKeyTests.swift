// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// A client's post-quantum key (docs/design/PostQuantum.md): published signed and logged, looked up proven, and a
/// server that substitutes, replays or mislabels one is refused.
@Suite struct ClientHybridKeyTests {
    static func code(_ body: () async throws -> Void) async -> ClientError.Code? {
        await ClientError.code(of: body)
    }

    @Test("sealing keys: one request answers what the two lookups answer, for every client asked; bounds are 400")
    func sealingKeysInOneRequest() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let alice = try await ClientTestServer.client(url, "alice")
            let readers = [
                try await ClientTestServer.client(url, "bob"), try await ClientTestServer.client(url, "carol"),
            ]
            let ids = readers.map { $0.configuration.clientID.uuidString.lowercased() }
            let keys = try #require(try await alice.sealingKeys(of: ids))
            for (reader, id) in zip(readers, ids) {
                let entry = try #require(keys[id])
                #expect(entry.classical == reader.configuration.keys.encryptionKey.publicKey)
                #expect(entry.hybrid == reader.configuration.keys.hybridKey?.publicKey)
                #expect(try await alice.publicKey(of: id) == entry.classical)
                #expect(try await alice.hybridPublicKey(of: reader.configuration.clientID) == entry.hybrid)
            }
            #expect(try await alice.sealingKeys(of: []) == [:])
            let unknown = UUID().uuidString.lowercased()
            #expect(await Self.code { _ = try await alice.sealingKeys(of: [ids[0], unknown]) } == .notFound)
            // The route's bounds, as a client could break them.
            func status(_ body: SealingKeysRequest) async -> ClientError.Code? {
                await Self.code {
                    _ = try await alice.authenticated(
                        .POST,
                        E3DBPath.sealingKeys.render(),
                        body: body,
                        success: [200],
                        as: SealingKeysResponse.self
                    )
                }
            }
            #expect(await status(SealingKeysRequest(clientIDs: [])) == .badRequest)
            #expect(await status(SealingKeysRequest(clientIDs: [ids[0], ids[0]])) == .badRequest)
            #expect(await status(SealingKeysRequest(clientIDs: ["not a UUID"])) == .badRequest)
            #expect(
                await status(SealingKeysRequest(clientIDs: (0...1_000).map { _ in UUID().uuidString })) == .badRequest
            )
            #expect(await status(SealingKeysRequest(clientIDs: [ids[0]], keyLogSince: .max)) == .badRequest)
            let answer = try await alice.authenticated(
                .POST,
                E3DBPath.sealingKeys.render(),
                body: SealingKeysRequest(clientIDs: [unknown, ids[1]]),
                success: [200],
                as: SealingKeysResponse.self
            )
            #expect(answer.clients.map { $0.client.clientID.lowercased() } == [ids[1]], "the unknown client left out")
        }
    }

    @Test("published, looked up proven; substituted, unsigned, mislabelled or replayed keys are refused")
    func publishAndVerify() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let alice = try await ClientTestServer.client(url, "alice")
            let bob = try await ClientTestServer.client(url, "bob")
            let aliceID = alice.configuration.clientID
            // Registration published the key the configuration holds.
            let registered = try #require(alice.configuration.keys.hybridKey)
            #expect(try await bob.hybridPublicKey(of: aliceID) == registered.publicKey)
            let first = HybridPrivateKey()
            let index = try await alice.publishHybridKey(first)
            #expect(try await alice.publishHybridKey(first) == index, "the same key again is a no-op")
            #expect(try await bob.hybridPublicKey(of: aliceID) == first.publicKey)
            let path = E3DBPath.clientHybridKey.render(aliceID.uuidString.lowercased())
            let honestFirst = try await bob.authenticated(.GET, path, success: [200], as: HybridKeyResponse.self)

            // What a server could answer instead.
            let stranger = HybridPrivateKey().publicKey
            var substituted = honestFirst
            substituted.publicKey = Base64URL.encode(stranger.rawRepresentation)
            #expect(await Self.code { _ = try await bob.verifiedHybridKey(substituted, of: aliceID) } == .tampered)
            let forger = SigningPrivateKey()
            substituted.signature = Base64URL.encode(
                forger.signature(for: HybridKeyLeaf.signedBytes(clientID: aliceID, key: stranger))
            )
            #expect(await Self.code { _ = try await bob.verifiedHybridKey(substituted, of: aliceID) } == .tampered)
            var junk = honestFirst
            junk.publicKey = String(repeating: "A", count: 5_000)
            #expect(await Self.code { _ = try await bob.verifiedHybridKey(junk, of: aliceID) } == .tampered)

            // Alice replaces it: her newer key, and the older one (signed by her) served with the newer leaf.
            let second = HybridPrivateKey()
            #expect(try await alice.publishHybridKey(second) > index)
            #expect(try await bob.hybridPublicKey(of: aliceID) == second.publicKey)
            let honestSecond = try await bob.authenticated(.GET, path, success: [200], as: HybridKeyResponse.self)
            var mislabelled = honestSecond
            (mislabelled.publicKey, mislabelled.signature) = (honestFirst.publicKey, honestFirst.signature)
            #expect(await Self.code { _ = try await bob.verifiedHybridKey(mislabelled, of: aliceID) } == .keyNotLogged)
            #expect(await Self.code { _ = try await bob.verifiedHybridKey(honestFirst, of: aliceID) } == .keyWithheld)

            // After Alice replaces her signing key (keeping no X-Wing key in the replacement, so none is published),
            // the key she published before still verifies (her chain's key).
            var replacement = alice.configuration.replacingKeys()
            replacement.keys.hybridKey = nil
            let renewed = Client(configuration: try await alice.rotateKeys(to: replacement).configuration)
            #expect(try await bob.hybridPublicKey(of: aliceID) == second.publicKey)
            let third = HybridPrivateKey()
            try await renewed.publishHybridKey(third)
            #expect(try await bob.hybridPublicKey(of: aliceID) == third.publicKey)

            // The server's own refusals: another client's key, a key signed by another key, not a key.
            let body = HybridKeyRequest(
                publicKey: Base64URL.encode(stranger.rawRepresentation),
                signature: Base64URL.encode(
                    forger.signature(for: HybridKeyLeaf.signedBytes(clientID: aliceID, key: stranger))
                )
            )
            #expect(
                await Self.code { try await bob.authenticated(.PUT, path, body: body, success: [200]) } == .forbidden
            )
            #expect(
                await Self.code { try await renewed.authenticated(.PUT, path, body: body, success: [200]) }
                    == .badRequest
            )
            var invalid = body
            invalid.publicKey = Base64URL.encode(Data(repeating: 0xFF, count: HybridPublicKey.byteCount))
            #expect(
                await Self.code { try await renewed.authenticated(.PUT, path, body: invalid, success: [200]) }
                    == .badRequest
            )
            #expect(try await bob.hybridPublicKey(of: aliceID) == third.publicKey)
        }
    }
}
