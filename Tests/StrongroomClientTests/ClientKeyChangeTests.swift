// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// A client replacing its keys (`Client.rotateKeys(to:)`, docs/design/KeyLog.md): nothing shared with it is lost,
/// its old private key opens nothing written afterwards, its old credentials stop working, and the official Python
/// SDK keeps sharing with it and reading from it.
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct ClientKeyChangeTests {
    static let type = "key-change-notes"

    /// The `n` of every record of `type` by `writer` that `reader` reads.
    static func values(readBy reader: Client, writer: UUID, type: String = type) async throws -> [String] {
        try await reader.query(QueryParams(count: 1000, types: [type], writerIDs: [writer])).records.compactMap {
            $0.data["n"]
        }
    }

    @Test(
        "after a key change everything shared before opens, the old key opens nothing new, the old credentials fail",
        arguments: TestEngine.available
    )
    func compromisedKey(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let alice = try await ClientTestServer.client(url, "alice")
                let bob = try await ClientTestServer.client(url, "bob")
                let pythonID = try await peer.register()
                let aliceID = alice.configuration.clientID
                let aliceText = aliceID.uuidString.lowercased()
                var expected: Set<String> = []
                for index in 0..<10 {
                    _ = try await alice.write(type: Self.type, data: ["n": "old-\(index)"])
                    expected.insert("old-\(index)")
                }
                for reader in [bob.configuration.clientID, pythonID] {
                    try await alice.share(type: Self.type, readerID: reader)
                }
                // Alice reads what Bob and the Python SDK share with her.
                for index in 0..<3 { _ = try await bob.write(type: "bob-notes", data: ["n": "bob-\(index)"]) }
                try await bob.share(type: "bob-notes", readerID: aliceID)
                let pythonRecord = try await peer.run(["write-share", peer.config, aliceText])
                #expect(try await alice.read(recordID: try #require(UUID(uuidString: pythonRecord))).data["n"] == "42")
                #expect(try await Self.values(readBy: bob, writer: aliceID).count == 10)

                // What a thief of Alice's device holds: her configuration and the access key she writes with.
                let stolen = alice.configuration
                let stolenKey = try await alice.readerKey(writerID: aliceText, userID: aliceText, type: Self.type)

                let replacement = alice.configuration.replacingKeys()
                let report = try await alice.rotateKeys(to: replacement)
                #expect(report.accessKeysRewrapped == 3, "her own key, Bob's and the Python client's")
                #expect(report.typesRotated == [Self.type] && report.rotationsPending.isEmpty, "\(report)")
                // The same change again (an answer lost) is the change already made, not a second one.
                let renewed = try Client(configuration: replacement, options: ClientTestServer.unhurried)

                // The old credentials: the old client (its token issued before the change) and a fresh one.
                for old in [alice, try Client(configuration: stolen, options: ClientTestServer.unhurried)] {
                    await #expect(throws: ClientError.self) { _ = try await Self.values(readBy: old, writer: aliceID) }
                }

                // Everything shared with her before opens with the new key: her own records (signed with her old
                // key), Bob's, the Python client's.
                #expect(Set(try await Self.values(readBy: renewed, writer: aliceID)) == expected)
                #expect(
                    try await Self.values(readBy: renewed, writer: bob.configuration.clientID, type: "bob-notes").count
                        == 3
                )
                let python = try await renewed.read(recordID: try #require(UUID(uuidString: pythonRecord)))
                #expect(python.data["n"] == "42")

                // Written afterwards under the rotated type.
                var after: Set<String> = []
                for index in 0..<10 {
                    let record = try await renewed.write(type: Self.type, data: ["n": "new-\(index)"])
                    after.insert(record.meta.recordID.uuidString.lowercased())
                    expected.insert("new-\(index)")
                }
                let stored = try await RevocationRotationTests.stored(by: renewed, type: Self.type)
                #expect(stored.count == 20)
                let opened = try RevocationRotationTests.opened(by: stolenKey, of: stored, among: after)
                #expect(opened == 0, "the stolen key opens \(opened) of the records written after the change")
                // No access key held for her now opens with the old private key.
                let held = try await renewed.authenticated(
                    .GET,
                    E3DBPath.heldAccessKeys.render(),
                    success: [200],
                    as: HeldAccessKeysResponse.self
                )
                #expect(held.keys.count == 3)
                // Nor its post-quantum wrap with the old X-Wing key: re-sealed to the new one, which opens it.
                let hybrid = held.keys.compactMap { entry in entry.accessKey.hybridEAK.map { (entry, $0) } }
                #expect(hybrid.count == 2, "her own key and Bob's (the Python client has no X-Wing key)")
                for (entry, text) in hybrid {
                    let wrap = try HybridAccessKeyWrap(wireFormat: text)
                    let context = HybridAccessKeyWrap.Context(
                        writerID: try #require(UUID(uuidString: entry.writerID)),
                        userID: try #require(UUID(uuidString: entry.userID)),
                        readerID: aliceID,
                        type: entry.type,
                        generation: UInt64(entry.generation)
                    )
                    let signer = replacement.keys.signingKey.publicKey
                    #expect(
                        (try? wrap.open(
                            with: try #require(stolen.keys.hybridKey),
                            context: context,
                            authorizer: signer
                        )) == nil
                    )
                    #expect(
                        (try? wrap.open(
                            with: try #require(replacement.keys.hybridKey),
                            context: context,
                            authorizer: signer
                        )) != nil
                    )
                }
                for entry in held.keys {
                    let sealer = try EncryptionPublicKey(
                        base64URLEncoded: try #require(entry.accessKey.authorizerPublicKey.curve25519)
                    )
                    #expect(
                        (try? EncryptedAccessKey(wireFormat: entry.accessKey.eak).open(
                            authorizerPublicKey: sealer,
                            readerPrivateKey: stolen.keys.encryptionKey
                        )) == nil
                    )
                }

                // Bob verifies old and new records (signed by the old key and the new one) and finds the new key
                // through the key log when he shares again; the Python SDK reads every record and shares anew.
                #expect(Set(try await Self.values(readBy: bob, writer: aliceID)) == expected)
                _ = try await bob.write(type: "bob-later", data: ["n": "later"])
                try await bob.share(type: "bob-later", readerID: aliceID)
                #expect(
                    try await Self.values(readBy: renewed, writer: bob.configuration.clientID, type: "bob-later") == [
                        "later"
                    ]
                )
                let read = try JSONDecoder().decode(
                    [[String: String]].self,
                    from: Data(try await peer.run(["read-type", peer.config, aliceText, Self.type]).utf8)
                )
                #expect(Set(read.compactMap { $0["n"] }) == expected && read.count == 20)
                let later = try await peer.run(["write-share", peer.config, aliceText])
                #expect(try await renewed.read(recordID: try #require(UUID(uuidString: later))).data["n"] == "42")

                // Her history: the registration and the signed change, both hers; a full scan agrees.
                let history = try await renewed.auditKeys()
                #expect(history.entries.map(\.kind) == [.registered, .keysChanged])
                #expect(history.entries.allSatisfy(\.isThisClients) && history.entries.last?.isCurrent == true)
                #expect(try await renewed.monitorKeyLog().ownKeyLeaves == history.entries.map(\.index))
                #expect(report.leafIndex == history.entries.last?.index)
            }
        }
    }

    @Test(
        "a writer still opens its own key that an authorizer sealed before replacing its keys; the authorizer shares on"
    )
    func authorizerChangedKeys() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let writer = try await ClientTestServer.client(url, "writer")
            let authorizer = try await ClientTestServer.client(url, "authorizer")
            let reader = try await ClientTestServer.client(url, "reader")
            let writerID = writer.configuration.clientID
            _ = try await writer.write(type: "t", data: ["n": "1"])
            try await writer.add(authorizerID: authorizer.configuration.clientID, type: "t")
            try await authorizer.share(onBehalfOf: writerID, type: "t", readerID: reader.configuration.clientID)
            // The authorizer's revoke rotates: the writer's own key is now sealed by the authorizer's key.
            _ = try await authorizer.revoke(onBehalfOf: writerID, type: "t", readerID: reader.configuration.clientID)
            let report = try await authorizer.rotateKeys()
            #expect(report.typesRotated.isEmpty && report.accessKeysRewrapped == 1, "\(report)")
            // A fresh process of the writer (nothing cached) opens it, sealed by the authorizer's earlier key.
            let fresh = try Client(configuration: writer.configuration, options: ClientTestServer.unhurried)
            let record = try await fresh.write(type: "t", data: ["n": "2"])
            #expect(try await fresh.read(recordID: record.meta.recordID).data["n"] == "2")
            let renewed = try Client(configuration: report.configuration, options: ClientTestServer.unhurried)
            let late = try await ClientTestServer.client(url, "late")
            try await renewed.share(onBehalfOf: writerID, type: "t", readerID: late.configuration.clientID)
            #expect(try await late.read(recordID: record.meta.recordID).data["n"] == "2")
        }
    }

    @Test("a key change for another client, unsigned, keeping a key or short of a held key is refused; a repeat is not")
    func refusals() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let alice = try await ClientTestServer.client(url, "alice")
            let bob = try await ClientTestServer.client(url, "bob")
            _ = try await bob.write(type: "shared", data: ["n": "1"])
            try await bob.share(type: "shared", readerID: alice.configuration.clientID)
            let aliceText = alice.configuration.clientID.uuidString.lowercased()
            let path = E3DBPath.clientKeys.render(aliceText)
            let old = alice.configuration.keys
            let new = ClientKeys.generate()
            func request(
                keys: ClientKeys,
                signedBy signer: SigningPrivateKey? = nil,
                rewrapped: [RewrappedAccessKey]
            ) throws -> KeyChangeRequest {
                let statement = KeyChangeStatement(
                    clientID: alice.configuration.clientID,
                    old: (old.encryptionKey.publicKey, old.signingKey.publicKey),
                    new: (keys.encryptionKey.publicKey, keys.signingKey.publicKey)
                )
                let bytes = statement.signedBytes
                return KeyChangeRequest(
                    publicKey: PublicKeyObject(curve25519: keys.encryptionKey.publicKey.base64URLEncoded),
                    signingKey: SigningKeyObject(ed25519: keys.signingKey.publicKey.base64URLEncoded),
                    oldSignature: Base64URL.encode((signer ?? old.signingKey).signature(for: bytes)),
                    newSignature: Base64URL.encode(keys.signingKey.signature(for: bytes)),
                    apiSecret: nil,
                    rewrapped: rewrapped
                )
            }
            let held = try await alice.authenticated(
                .GET,
                E3DBPath.heldAccessKeys.render(),
                success: [200],
                as: HeldAccessKeysResponse.self
            )
            #expect(held.keys.count == 1 && held.keys[0].generation == 1)
            let key = try alice.open(held.keys[0].accessKey)
            let rewrapped = [
                RewrappedAccessKey(
                    writerID: held.keys[0].writerID,
                    userID: held.keys[0].userID,
                    type: "shared",
                    eak: key.sealed(to: new.encryptionKey.publicKey, by: new.encryptionKey).wireFormat,
                    generation: 1
                )
            ]
            func refused(_ client: Client, _ path: String, _ body: KeyChangeRequest) async -> ClientError.Code? {
                do {
                    try await client.authenticated(.POST, path, body: body, success: [200])
                    return nil
                } catch {
                    return error.code
                }
            }
            // Another client's keys; a signature by another key; the current key again; a held key left out.
            #expect(await refused(bob, path, try request(keys: new, rewrapped: rewrapped)) == .forbidden)
            #expect(
                await refused(alice, path, try request(keys: new, signedBy: SigningPrivateKey(), rewrapped: rewrapped))
                    == .badRequest
            )
            #expect(
                await refused(
                    alice,
                    path,
                    try request(
                        keys: ClientKeys(encryptionKey: old.encryptionKey, signingKey: new.signingKey),
                        rewrapped: rewrapped
                    )
                )
                    == .badRequest
            )
            #expect(await refused(alice, path, try request(keys: new, rewrapped: [])) == .conflict)
            var stale = rewrapped
            stale[0].generation = 2
            #expect(await refused(alice, path, try request(keys: new, rewrapped: stale)) == .conflict)
            // The change; the same again answers the same leaf.
            let body = try request(keys: new, rewrapped: rewrapped)
            let first = try await alice.authenticated(
                .POST,
                path,
                body: body,
                success: [200],
                as: KeyLogLeafResponse.self
            )
            let renewed = try Client(
                configuration: {
                    var configuration = alice.configuration
                    configuration.keys = new
                    return configuration
                }(),
                options: ClientTestServer.unhurried
            )
            let again = try await renewed.authenticated(
                .POST,
                path,
                body: body,
                success: [200],
                as: KeyLogLeafResponse.self
            )
            #expect(again == first)
            #expect(
                try await renewed.read(
                    recordID: try await bob.query(QueryParams(types: ["shared"])).records[0].meta.recordID
                ).data["n"] == "1"
            )
        }
    }
}
