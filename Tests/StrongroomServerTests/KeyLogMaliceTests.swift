// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCrypto
import StrongroomServer
import StrongroomServerTesting
import StrongroomTesting
import Testing

/// The SDK against a malicious server (``KeyLogMalice``, a decorator of the key log's answers): each attack on the key log that issue
/// 50 names is noticed by a verifying client, and no access key is sealed to a substituted key.
@Suite struct KeyLogMaliceTests {
    /// A malicious server and a way to register SDK clients on it (own history checked on every grown log).
    static func withServer(
        _ engine: TestEngine,
        _ body: @escaping @Sendable (KeyLogMalice, @Sendable (String) async throws -> Client) async throws -> Void
    )
        async throws
    {
        let malice = KeyLogMalice()
        try await TestServer.run(engine: engine, keyLogMalice: malice) { api in
            try await body(malice) { name in
                try await api.sdkClient(name) { $0.keyLog.ownHistoryInterval = .zero }
            }
        }
    }

    static func code(_ body: () async throws -> Void) async -> ClientError.Code? {
        await ClientError.code(of: body)
    }

    @Test(
        "key substitution on 1 of 3 lookups: that share fails (keyNotLogged) and no access key is sealed to it",
        arguments: TestEngine.available
    )
    func substitution(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let writer = try await register("writer")
            var readers: [Client] = []
            for index in 0..<3 { readers.append(try await register("reader\(index)")) }
            let record = try await writer.write(type: "kt", data: ["secret": "s"])
            malice.substituteKeys(everyNthLookup: 3)
            var refused: [Int] = []
            for (index, reader) in readers.enumerated() {
                let code = await Self.code {
                    try await writer.share(type: "kt", readerID: reader.configuration.clientID)
                }
                if let code {
                    #expect(code == .keyNotLogged)
                    refused.append(index)
                }
            }
            #expect(refused == [2])
            let shared = try await writer.outgoingSharing().map(\.readerID)
            #expect(Set(shared) == Set(readers.prefix(2).map(\.configuration.clientID)), "no grant for the third")
            #expect(await Self.code { _ = try await readers[2].read(recordID: record.meta.recordID) } == .forbidden)

            // Without verification the same attack goes through: the access key is sealed to the server's key.
            var trusting = writer.configuration
            trusting.keyLog = .trustingTheServer()
            trusting.postQuantum = PostQuantumPolicy(defaultMode: .off)  // else the X-Wing wrap still reaches it
            let victim = try await register("victim")
            malice.substituteKeys(everyNthLookup: 1)
            try await Client(configuration: trusting).share(type: "kt", readerID: victim.configuration.clientID)
            malice.substituteKeys(everyNthLookup: nil)
            #expect(await Self.code { _ = try await victim.read(recordID: record.meta.recordID) } == .tampered)
        }
    }

    @Test(
        "after a key change: the old keys replayed to a sharer that saw the new ones are keyWithheld, substituted ones keyNotLogged; nothing sealed to either",
        arguments: TestEngine.available
    )
    func replayedKeyChange(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let alice = try await register("alice")
            let bob = try await register("bob")
            let aliceID = alice.configuration.clientID
            _ = try await bob.write(type: "before", data: ["n": "1"])
            try await bob.share(type: "before", readerID: aliceID)
            let renewed = Client(configuration: try await alice.rotateKeys().configuration)
            let after = try await bob.write(type: "after", data: ["n": "2"])
            try await bob.share(type: "after", readerID: aliceID)  // Bob's lookup proves the new keys' leaf
            #expect(try await renewed.read(recordID: after.meta.recordID).data["n"] == "2")

            let replayed = try await bob.write(type: "replayed", data: ["n": "3"])
            malice.replayPreviousKeys(of: aliceID.uuidString.lowercased())
            #expect(await Self.code { try await bob.share(type: "replayed", readerID: aliceID) } == .keyWithheld)
            // Bob started again on the same key log state (a profile's keylog.json, its keychain item) remembers it.
            let restarted = Client(configuration: bob.configuration)
            #expect(
                await Self.code { try await restarted.share(type: "replayed", readerID: aliceID) } == .keyWithheld
            )
            // A fresh process that never looked Alice up is fooled, until a full scan shows it her key change.
            let fresh = try await register("fresh")
            _ = try await fresh.write(type: "fresh", data: ["n": "4"])
            try await fresh.share(type: "fresh", readerID: aliceID)
            try await fresh.revoke(type: "fresh", readerID: aliceID, rotate: false)
            _ = try await fresh.monitorKeyLog()
            #expect(await Self.code { try await fresh.share(type: "fresh", readerID: aliceID) } == .keyWithheld)
            malice.replayPreviousKeys(of: nil)
            malice.substituteKeys(everyNthLookup: 1)
            #expect(await Self.code { try await bob.share(type: "replayed", readerID: aliceID) } == .keyNotLogged)
            malice.substituteKeys(everyNthLookup: nil)
            #expect(!(try await bob.outgoingSharing().contains { $0.type == "replayed" }), "nothing sealed to them")
            // The honest answer again: shared with the new keys, which open it.
            try await bob.share(type: "replayed", readerID: aliceID)
            #expect(try await renewed.read(recordID: replayed.meta.recordID).data["n"] == "3")
            #expect(try await renewed.auditKeys().entries.map(\.kind) == [.registered, .keysChanged])
        }
    }

    @Test(
        "an extra key bound to a client in the log: its owner refuses to operate (keyCompromised); hidden from its history, the monitor finds it",
        arguments: TestEngine.available
    )
    func extraKey(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let sharer = try await register("sharer")
            let victim = try await register("victim")
            let other = try await register("other")
            _ = try await victim.clientInfo(of: other.configuration.clientID)  // the victim has checked itself once

            malice.bindExtraKey(to: victim.configuration.clientID.uuidString.lowercased(), hiddenFromHistory: false)
            // The log proves the bound key, so a sharer cannot tell; the owner can.
            let seen = try await sharer.clientInfo(of: victim.configuration.clientID)
            #expect(seen.publicKey != victim.configuration.keys.encryptionKey.publicKey)
            #expect(await Self.code { _ = try await victim.auditKeys() } == .keyCompromised)
            #expect(
                await Self.code { _ = try await victim.clientInfo(of: other.configuration.clientID) }
                    == .keyCompromised,
                "its next key operation refuses"
            )
            #expect(await Self.code { _ = try await victim.monitorKeyLog() } == .keyCompromised)

            let hidden = try await register("hidden")
            malice.bindExtraKey(to: hidden.configuration.clientID.uuidString.lowercased(), hiddenFromHistory: true)
            _ = try await sharer.clientInfo(of: hidden.configuration.clientID)
            #expect(try await hidden.auditKeys().entries.count == 1, "the server hides the leaf from the history")
            #expect(await Self.code { _ = try await hidden.monitorKeyLog() } == .keyCompromised)
        }
    }

    @Test(
        "a verified contact's keys changed by the server: every key operation with it refuses (contactKeysChanged), loudly, across processes; an unverified one is taken",
        arguments: TestEngine.available
    )
    func verifiedContactChanged(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let state = KeyLogMemoryState()
            let alice = try await register("alice")
            var keeping = alice.configuration
            keeping.keyLog.state = state
            let sharer = Client(configuration: keeping)
            let bob = try await register("bob")
            let carol = try await register("carol")
            let (bobID, carolID) = (bob.configuration.clientID, carol.configuration.clientID)
            _ = try await sharer.write(type: "kt", data: ["secret": "s"])

            // Both sides compute the same number; a number that differs marks nothing.
            let number = try await sharer.safetyNumber(with: bobID)
            #expect(number == (try await bob.safetyNumber(with: alice.configuration.clientID)))
            #expect(number.digits.count == 60)
            let other = try await sharer.safetyNumber(with: carolID)
            #expect(await Self.code { try await sharer.verifyContact(bobID, safetyNumber: other.digits) } == .tampered)
            #expect(try await sharer.contactVerification(of: bobID) == .unverified)
            try await sharer.verifyContact(bobID, safetyNumber: number.description)
            #expect(try await sharer.contactVerification(of: bobID) == .verified)
            #expect(await state.load()?.verifiedContacts.count == 1, "kept with the key log state")

            // The server binds keys of its own to bob's and carol's IDs, proven by its log. Carol was never verified:
            // the sharer cannot tell (the gap the out-of-band check closes). Bob was: refused, nothing shared, and a
            // fresh process with the kept state refuses too.
            for victim in [bobID, carolID] {
                malice.bindExtraKey(to: victim.uuidString.lowercased(), hiddenFromHistory: false)
            }
            _ = try await sharer.clientInfo(of: carolID)
            #expect(await Self.code { try await sharer.share(type: "kt", readerID: bobID) } == .contactKeysChanged)
            let later = Client(configuration: keeping)
            #expect(await Self.code { try await later.share(type: "kt", readerID: bobID) } == .contactKeysChanged)
            #expect(await Self.code { _ = try await later.clientInfo(of: bobID) } == .contactKeysChanged)
            #expect(try await later.outgoingSharing().isEmpty, "nothing was shared with bob's new keys")
            #expect(try await later.contactVerification(of: bobID) == .changed)
            // The number changed with the keys; verifying again (after comparing) accepts the new ones.
            let changed = try await later.safetyNumber(with: bobID)
            #expect(changed != number)
            try await later.verifyContact(bobID, safetyNumber: changed.digits)
            #expect(try await later.contactVerification(of: bobID) == .verified)
        }
    }

    @Test(
        "a stale checkpoint replayed is refused (checkpointStale) until fresh ones come again",
        arguments: TestEngine.available
    )
    func staleCheckpoint(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let writer = try await register("writer")
            let reader = try await register("reader")
            malice.backdateCheckpoints(by: 3_600)
            #expect(
                await Self.code { _ = try await writer.clientInfo(of: reader.configuration.clientID) }
                    == .checkpointStale
            )
            malice.backdateCheckpoints(by: 0)
            _ = try await writer.clientInfo(of: reader.configuration.clientID)
        }
    }

    @Test("a forked log shown to a client, then the real one: logInconsistent", arguments: TestEngine.available)
    func fork(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let writer = try await register("writer")
            let reader = try await register("reader")
            let seen = try await writer.keyLogCheckpoint()
            // The fork agrees with what the writer saw, so it is accepted (only witnesses would object)…
            malice.insertFakeLeaf(at: seen.size)
            #expect(try await writer.keyLogCheckpoint().size == seen.size + 1)
            // …but the real log grows differently, and once the writer sees it the two cannot be reconciled.
            _ = try await register("newcomer")
            malice.insertFakeLeaf(at: nil)
            #expect(
                await Self.code { _ = try await writer.clientInfo(of: reader.configuration.clientID) }
                    == .logInconsistent
            )
        }
    }

    @Test("the log truncated and regrown differently: logInconsistent", arguments: TestEngine.available)
    func truncatedAndRegrown(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let writer = try await register("writer")
            let reader = try await register("reader")
            _ = try await register("third")
            #expect(
                try await writer.keyLogCheckpoint().size == 7,
                "the backup client, and three clients with their X-Wing keys"
            )
            malice.insertFakeLeaf(at: 1)
            #expect(
                await Self.code { _ = try await writer.clientInfo(of: reader.configuration.clientID) }
                    == .logInconsistent
            )
            #expect(await Self.code { _ = try await writer.keyLogCheckpoint() } == .logInconsistent)
        }
    }

    @Test(
        "a revoke rolled back out of the log (history rewritten from its leaf): logInconsistent for its writer",
        arguments: TestEngine.available
    )
    func rolledBackRevoke(engine: TestEngine) async throws {
        try await Self.withServer(engine) { malice, register in
            let writer = try await register("writer")
            let reader = try await register("reader")
            try await writer.share(type: "kt", readerID: reader.configuration.clientID)
            try await writer.revoke(type: "kt", readerID: reader.configuration.clientID)
            let afterRevoke = try await writer.keyLogCheckpoint()
            // The revocation is the newest leaf; the server rewrites the log from it, as if it never happened.
            malice.insertFakeLeaf(at: afterRevoke.size - 1)
            #expect(
                await Self.code { _ = try await writer.clientInfo(of: reader.configuration.clientID) }
                    == .logInconsistent
            )
        }
    }
}
