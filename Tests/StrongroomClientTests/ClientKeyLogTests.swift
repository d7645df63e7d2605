// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCrypto
import StrongroomKeychain
import StrongroomTesting
import Testing

/// The SDK's key log checks against an honest server: on by default, state kept, every verdict typed.
@Suite struct ClientKeyLogTests {
    @Test(
        "keys are verified by default: share, lookups and a shared record's signer pass, the log only grows",
        arguments: TestEngine.available
    )
    func verifiedByDefault(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let state = KeyLogMemoryState()
            var configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "writer",
                apiURL: url
            )
            #expect(configuration.keyLog.isEnabled)
            configuration.keyLog.state = state
            let writer = Client(configuration: configuration)
            let reader = try await ClientTestServer.client(url, "reader")

            let record = try await writer.write(type: "kt", data: ["a": "1"])
            try await writer.share(type: "kt", readerID: reader.configuration.clientID)
            #expect(try await reader.read(recordID: record.meta.recordID).data == ["a": "1"])
            let info = try await writer.clientInfo(of: reader.configuration.clientID)
            #expect(info.publicKey == reader.configuration.keys.encryptionKey.publicKey)

            // The state holds the pinned key and a checkpoint; a later one extends it.
            let saved = try #require(await state.load())
            let key = try NoteVerifierKey(saved.verifierKey)
            #expect(key.name.hasPrefix("strongroom.keylog/"))
            let first = try #require(saved.checkpoint)
            _ = try await ClientTestServer.client(url, "third")
            let newer = try await writer.keyLogCheckpoint()
            #expect(newer.size >= 3)
            #expect(try #require(await state.load()).checkpoint != first)

            // Its own history is its registration; a full scan finds only its own key leaf.
            let history = try await writer.auditKeys()
            #expect(history.entries.count == 1)
            #expect(history.entries[0].kind == .registered && history.entries[0].isThisClients)
            let report = try await writer.monitorKeyLog()
            #expect(report.ownKeyLeaves == [history.entries[0].index])
            #expect(report.checkpoint.size >= newer.size)
        }
    }

    @Test(
        "a pinned key that is not the log's refuses every key; opting out trusts the server",
        arguments: [TestEngine.sqlite]
    )
    func pinnedKey(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let reader = try await ClientTestServer.client(url, "reader")
            var configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "writer",
                apiURL: url
            )
            configuration.keyLog.verifierKey = try NoteVerifierKey(
                name: "strongroom.keylog/0000000000000000",
                publicKey: SigningPrivateKey().publicKey
            )
            let pinned = Client(configuration: configuration)
            let refused = await #expect(throws: ClientError.self) {
                try await pinned.share(type: "kt", readerID: reader.configuration.clientID)
            }
            #expect(refused?.code == .logInconsistent)
            #expect(try await pinned.outgoingSharing().isEmpty, "nothing was shared")

            configuration.keyLog = .trustingTheServer()
            #expect(!configuration.keyLog.isEnabled)
            let trusting = Client(configuration: configuration)
            try await trusting.share(type: "kt", readerID: reader.configuration.clientID)
        }
    }

    /// A later run of a profile kept in `state`, where the server now shows a log under another key (a fork it
    /// cannot sign as the old log): refused, nothing shared.
    static func refusesAnotherLog(
        kept state: any KeyLogStateStore,
        later: Client,
        reader: Client
    ) async throws {
        let other = try NoteVerifierKey(
            name: "strongroom.keylog/0000000000000000",
            publicKey: SigningPrivateKey().publicKey
        )
        try await state.save(KeyLogState(verifierKey: other.description, checkpoint: nil))
        let refused = await #expect(throws: ClientError.self) {
            try await later.share(type: "kt", readerID: reader.configuration.clientID)
        }
        #expect(refused?.code == .logInconsistent)
        #expect(try await later.outgoingSharing().isEmpty, "nothing was shared")
    }

    @Test("a loaded profile keeps its key log state beside it: a later process refuses a log under another key")
    func profileKeepsState() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { directory in
                let reader = try await ClientTestServer.client(url, "reader")
                try await Client.register(
                    token: ClientTestServer.registrationToken,
                    clientName: "writer",
                    apiURL: url
                ).save(profile: "writer", in: directory)
                let file = directory.appending(path: "writer/keylog.json")
                let loaded = try Client.Configuration(loadProfile: "writer", from: directory)
                #expect(!FileManager.default.fileExists(atPath: file.path), "loading writes nothing")
                _ = try await Client(configuration: loaded).keyLogCheckpoint()
                let saved = try #require(try await KeyLogFileState(url: file).load())
                #expect(try NoteVerifierKey(saved.verifierKey).name.hasPrefix("strongroom.keylog/"))

                try await Self.refusesAnotherLog(
                    kept: KeyLogFileState(url: file),
                    later: Client(configuration: try Client.Configuration(loadProfile: "writer", from: directory)),
                    reader: reader
                )
            }
        }
    }

    @Test("a keychain profile keeps its key log state in the keychain: a later process shown another log refuses")
    func keychainProfileKeepsState() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { directory in
                let keychain = Keychain(
                    backend: try EncryptedFileBackend.create(
                        at: directory.appending(path: "sdk.keychain"),
                        passphrase: "pass phrase",
                        parameters: .minimum
                    )
                )
                let reader = try await ClientTestServer.client(url, "reader")
                try await Client.register(
                    token: ClientTestServer.registrationToken,
                    clientName: "writer",
                    apiURL: url
                ).save(profile: "writer", to: keychain)
                let state = KeyLogKeychainState(keychain: keychain, profile: "writer")
                let loaded = try Client.Configuration(loadProfile: "writer", from: keychain)
                #expect(try await state.load() == nil, "loading writes nothing")
                _ = try await Client(configuration: loaded).keyLogCheckpoint()
                let saved = try #require(try await state.load())
                #expect(try NoteVerifierKey(saved.verifierKey).name.hasPrefix("strongroom.keylog/"))
                #expect(saved.checkpoint != nil)

                try await Self.refusesAnotherLog(
                    kept: state,
                    later: Client(configuration: try Client.Configuration(loadProfile: "writer", from: keychain)),
                    reader: reader
                )
            }
        }
    }

    @Test("a tampered stored checkpoint is refused, not trusted; a freshness bound refuses older checkpoints")
    func forkAndStaleness() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let reader = try await ClientTestServer.client(url, "reader")
            var configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "writer",
                apiURL: url
            )
            let state = KeyLogMemoryState()
            configuration.keyLog.state = state
            let honest = Client(configuration: configuration)
            let seen = try await honest.keyLogCheckpoint()
            let saved = try #require(await state.load())

            // The stored checkpoint's root rewritten (its signature kept): the state no longer verifies, so the
            // client refuses to work from it rather than accept whatever the server shows next.
            let note = try #require(saved.checkpoint)
            let forged = note.replacingOccurrences(
                of: Data(seen.root.bytes).base64EncodedString(),
                with: Data(MerkleHash.leaf(Data("fork".utf8)).bytes).base64EncodedString()
            )
            #expect(forged != note)
            var forkedConfiguration = configuration
            forkedConfiguration.keyLog.state = KeyLogMemoryState(
                KeyLogState(verifierKey: saved.verifierKey, checkpoint: forged)
            )
            let forked = Client(configuration: forkedConfiguration)
            let refused = await #expect(throws: ClientError.self) {
                try await forked.share(type: "kt", readerID: reader.configuration.clientID)
            }
            #expect(refused?.code == .invalidConfiguration)

            // A freshness bound of zero refuses any checkpoint signed before this instant (its second has begun).
            var strict = configuration
            strict.keyLog = KeyLogVerification(maximumCheckpointAge: .zero, state: KeyLogMemoryState(saved))
            let stale = await #expect(throws: ClientError.self) {
                try await Client(configuration: strict).clientInfo(of: reader.configuration.clientID)
            }
            #expect(stale?.code == .checkpointStale)
        }
    }
}
