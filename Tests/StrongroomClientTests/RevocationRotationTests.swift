// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// A revoke that rotates (docs/design/Revocation.md): the revoked reader, holding the key it had and the server's
/// stored ciphertext, opens none of what was written after its revocation; every remaining reader — a Swift one, the
/// official Python SDK, and one added afterwards — reads every record, old and new.
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct RevocationRotationTests {
    static let type = "rotating-notes"
    /// Records written after the revocation in the dump test: `STRONGROOM_ROTATION_RECORDS` (default 2,000, so
    /// the pass stays short; the 10,000 take about a minute per engine here).
    static var recordsAfter: Int {
        let configured = ProcessInfo.processInfo.environment["STRONGROOM_ROTATION_RECORDS"].flatMap { Int($0) }
        return min(max(configured ?? 2_000, 20), 1_000_000)
    }

    /// Every record of the type `client` wrote, as the server stores it (what a dump of its database holds).
    static func stored(by client: Client, type: String = type) async throws -> [SearchResult] {
        var (results, after) = ([SearchResult](), Int64(0))
        while true {
            let page = try await client.authenticated(
                .POST,
                E3DBPath.search.render(),
                body: QueryParams(
                    count: 1000,
                    types: [type],
                    writerIDs: [client.configuration.clientID],
                    afterIndex: after
                ).wire,
                success: [200],
                as: SearchResponse.self
            )
            results += page.results
            guard !page.results.isEmpty, page.lastIndex > after else { return results }
            after = page.lastIndex
        }
    }

    /// How many of the `stored` records named in `ids` have a field `key` opens (a revoked reader's stolen key
    /// against a dump of the server's records).
    static func opened(by key: AccessKey, of stored: [SearchResult], among ids: Set<String>) throws -> Int {
        var opened = 0
        for result in stored where ids.contains(result.meta.recordID.lowercased()) {
            let fields = try (result.recordData ?? [:]).values.map { try EncryptedField(wireFormat: $0) }
            if fields.contains(where: { FieldCipher.isSealed($0, under: key) }) { opened += 1 }
        }
        return opened
    }

    /// The `n` of every record of the type `reader` reads, through the SDK's queries.
    static func values(readBy reader: Client, writer: UUID) async throws -> [String] {
        var (values, after) = ([String](), Int64(0))
        while true {
            let page = try await reader.query(
                QueryParams(count: 1000, types: [type], writerIDs: [writer], afterIndex: after)
            )
            values += page.records.compactMap { $0.data["n"] }
            guard !page.records.isEmpty, page.lastIndex > after else { return values }
            after = page.lastIndex
        }
    }

    @Test(
        "a revoked reader with its old key and the stored records opens 0 new ones; the rest read 100%",
        arguments: TestEngine.available
    )
    func revokedReaderWithADump(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let writer = try await ClientTestServer.client(url, "writer")
                let revoked = try await ClientTestServer.client(url, "revoked")
                let kept = try await ClientTestServer.client(url, "kept")
                let pythonID = try await peer.register()
                let writerID = writer.configuration.clientID
                var expected: Set<String> = []
                var old: [Record] = []
                for index in 0..<20 {
                    old.append(try await writer.write(type: Self.type, data: ["n": "old-\(index)"]))
                    expected.insert("old-\(index)")
                }
                for reader in [revoked.configuration.clientID, kept.configuration.clientID, pythonID] {
                    try await writer.share(type: Self.type, readerID: reader)
                }
                // The reader about to be revoked has read, so it holds the key: as a thief would keep it.
                _ = try await revoked.read(recordID: old[0].meta.recordID)
                let stolen = try await revoked.readerKey(
                    writerID: writerID.uuidString.lowercased(),
                    userID: writerID.uuidString.lowercased(),
                    type: Self.type
                )

                let report = try #require(
                    try await writer.revoke(type: Self.type, readerID: revoked.configuration.clientID)
                )
                #expect(report.generation == 2 && report.readers == 3, "\(report)")
                #expect(report.recordsRewrapped == 20 && report.recordsLeft == 0, "\(report)")

                // Written after the revocation: new records (8 at a time), an updated old one.
                let count = Self.recordsAfter
                var after: Set<String> = []
                try await withThrowingTaskGroup(of: String.self) { group in
                    for lane in 0..<8 {
                        group.addTask {
                            var ids: [String] = []
                            for index in stride(from: lane, to: count, by: 8) {
                                let record = try await writer.write(type: Self.type, data: ["n": "new-\(index)"])
                                ids.append(record.meta.recordID.uuidString.lowercased())
                            }
                            return ids.joined(separator: " ")
                        }
                    }
                    for try await ids in group { after.formUnion(ids.split(separator: " ").map(String.init)) }
                }
                for index in 0..<count { expected.insert("new-\(index)") }
                // The re-wrap updated every record, so a version read before the rotation is stale (409), as after
                // any other writer's update: read again, then update.
                await #expect(throws: ClientError.self) {
                    _ = try await writer.update(meta: old[1].meta, newData: ["n": "stale"])
                }
                let current = try await writer.read(recordID: old[1].meta.recordID)
                let updated = try await writer.update(meta: current.meta, newData: ["n": "old-1-updated"])
                after.insert(updated.meta.recordID.uuidString.lowercased())
                expected.remove("old-1")
                expected.insert("old-1-updated")

                // The server's stored ciphertext of every record (what a dump of its database holds).
                let stored = try await Self.stored(by: writer)
                #expect(stored.count == 20 + count)
                let opened = try Self.opened(by: stolen, of: stored, among: after)
                #expect(opened == 0, "the revoked reader's key opens \(opened) of the records written after")
                await #expect(throws: ClientError.self) { _ = try await revoked.read(recordID: updated.meta.recordID) }

                // Every remaining reader reads every record, old and new: a Swift one, the Python SDK, and a
                // reader shared with after the rotation.
                let late = try await ClientTestServer.client(url, "late")
                try await writer.share(type: Self.type, readerID: late.configuration.clientID)
                for reader in [kept, late] {
                    let values = try await Self.values(readBy: reader, writer: writerID)
                    #expect(values.count == 20 + count && Set(values) == expected)
                }
                let python = try await peer.run([
                    "read-type", peer.config, writerID.uuidString.lowercased(), Self.type,
                ])
                let read = try JSONDecoder().decode([[String: String]].self, from: Data(python.utf8))
                #expect(Set(read.compactMap { $0["n"] }) == expected && read.count == 20 + count)
            }
        }
    }

    @Test(
        "an authorizer's revoke rotates the writer's key: the revoked reader opens nothing new, the writer finishes",
        arguments: TestEngine.available
    )
    func authorizerRevoke(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let writer = try await ClientTestServer.client(url, "writer")
                let authorizer = try await ClientTestServer.client(url, "authorizer")
                let revoked = try await ClientTestServer.client(url, "revoked")
                let kept = try await ClientTestServer.client(url, "kept")
                let pythonID = try await peer.register()
                let writerID = writer.configuration.clientID
                let writerText = writerID.uuidString.lowercased()
                var expected: Set<String> = []
                for index in 0..<10 {
                    _ = try await writer.write(type: Self.type, data: ["n": "old-\(index)"])
                    expected.insert("old-\(index)")
                }
                try await writer.add(authorizerID: authorizer.configuration.clientID, type: Self.type)
                for reader in [revoked.configuration.clientID, kept.configuration.clientID, pythonID] {
                    try await authorizer.share(onBehalfOf: writerID, type: Self.type, readerID: reader)
                }
                #expect(try await Self.values(readBy: revoked, writer: writerID).count == 10)
                let stolen = try await revoked.readerKey(writerID: writerText, userID: writerText, type: Self.type)

                let report = try #require(
                    try await authorizer.revoke(
                        onBehalfOf: writerID,
                        type: Self.type,
                        readerID: revoked.configuration.clientID
                    )
                )
                #expect(report.generation == 2 && report.readers == 4 && report.rewrapPending, "\(report)")
                #expect(report.recordsRewrapped == 0, "only the writer changes its records")
                // A reader holding no key of the type: its reads denied, nothing rotated.
                let never = try await ClientTestServer.client(url, "never-shared")
                let none = try await authorizer.revoke(
                    onBehalfOf: writerID,
                    type: Self.type,
                    readerID: never.configuration.clientID
                )
                #expect(none == nil)

                // The writer (its cached key now stale, fenced by the server) writes under the new generation.
                var after: Set<String> = []
                for index in 0..<10 {
                    let record = try await writer.write(type: Self.type, data: ["n": "new-\(index)"])
                    after.insert(record.meta.recordID.uuidString.lowercased())
                    expected.insert("new-\(index)")
                }
                let stored = try await Self.stored(by: writer)
                let opened = try Self.opened(by: stolen, of: stored, among: after)
                #expect(opened == 0, "the revoked reader's key opens \(opened) of the records written after")
                // A Swift reader reads old and new at once, the old through the link; the writer's re-wrap then
                // lets the official SDK read them too.
                #expect(Set(try await Self.values(readBy: kept, writer: writerID)) == expected)
                let finished = try await writer.finishKeyRotation(type: Self.type)
                #expect(finished.recordsRewrapped == 10 && finished.recordsLeft == 0, "\(finished)")
                let python = try await peer.run(["read-type", peer.config, writerText, Self.type])
                let read = try JSONDecoder().decode([[String: String]].self, from: Data(python.utf8))
                #expect(Set(read.compactMap { $0["n"] }) == expected && read.count == 20)
            }
        }
    }

    /// The key log leaf `rotateAccessKey` sends with a rotation of ``type`` from `old` to `new`.
    static func logLeaf(rotating old: AccessKey, to new: AccessKey, writer: UUID) throws -> KeyRotationLogLeaf {
        KeyRotationLogLeaf(try KeyGenerationLeaf(rotating: old, to: new, writer: writer, user: writer, type: type))
    }

    @Test("a rotation stopped after its commit, before any re-wrap, is finished by a fresh client through the link")
    func interruptedRotation() async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let writer = try await ClientTestServer.client(url, "writer")
                let kept = try await ClientTestServer.client(url, "kept")
                let revoked = try await ClientTestServer.client(url, "revoked")
                let pythonID = try await peer.register()
                let writerID = writer.configuration.clientID.uuidString.lowercased()
                var old: [Record] = []
                for index in 0..<12 { old.append(try await writer.write(type: Self.type, data: ["n": "\(index)"])) }
                for reader in [kept.configuration.clientID, revoked.configuration.clientID, pythonID] {
                    try await writer.share(type: Self.type, readerID: reader)
                }
                _ = try await revoked.read(recordID: old[0].meta.recordID)
                let stolen = try await revoked.readerKey(writerID: writerID, userID: writerID, type: Self.type)

                // Exactly what rotateAccessKey commits, then the process is gone: no record re-wrapped.
                let oldKey = try await writer.readerKey(writerID: writerID, userID: writerID, type: Self.type)
                let newKey = AccessKey()
                var eaks: [ReaderAccessKey] = []
                for reader in [
                    writerID, kept.configuration.clientID.uuidString.lowercased(), pythonID.uuidString.lowercased(),
                ] {
                    let publicKey =
                        reader == writerID
                        ? writer.configuration.keys.encryptionKey.publicKey : try await writer.publicKey(of: reader)
                    let eak = newKey.sealed(to: publicKey, by: writer.configuration.keys.encryptionKey)
                    eaks.append(ReaderAccessKey(readerID: reader, eak: eak.wireFormat))
                }
                let rotation = AccessKeyRotationRequest(
                    generation: 2,
                    eaks: eaks,
                    revoke: [revoked.configuration.clientID.uuidString.lowercased()],
                    previous: newKey.sealingLink(to: oldKey).wireFormat,
                    keyLog: try Self.logLeaf(rotating: oldKey, to: newKey, writer: writer.configuration.clientID)
                )
                try await writer.authenticated(
                    .POST,
                    E3DBPath.accessKeyRotation.render(writerID, writerID, Self.type),
                    body: rotation,
                    success: [201]
                )
                // Every EAK now holds the new key: a Strongroom reader opens the old records through the link (an
                // official SDK, which knows one key per type, opens them once they are re-wrapped).
                #expect(try await kept.read(recordID: old[0].meta.recordID).meta.recordID == old[0].meta.recordID)

                // Another process of the writer (nothing cached) finishes from the link; a second run finds nothing.
                let fresh = try Client(configuration: writer.configuration, options: ClientTestServer.unhurried)
                let report = try await fresh.finishKeyRotation(type: Self.type)
                #expect(report.generation == 2 && report.readers == 3, "\(report)")
                #expect(report.recordsRewrapped == 12 && report.recordsLeft == 0, "\(report)")
                #expect(try await fresh.finishKeyRotation(type: Self.type).recordsRewrapped == 0)
                // A later rotation reaches records of every older generation through the links, and keeps them.
                let third = try await fresh.rotateAccessKey(type: Self.type)
                #expect(third.generation == 3 && third.recordsRewrapped == 12 && third.recordsLeft == 0, "\(third)")

                let expected = Set((0..<12).map { "\($0)" })
                let page = try await kept.query(
                    QueryParams(count: 100, types: [Self.type], writerIDs: [writer.configuration.clientID])
                )
                #expect(Set(page.records.compactMap { $0.data["n"] }) == expected)
                let python = try await peer.run(["read-type", peer.config, writerID, Self.type])
                let read = try JSONDecoder().decode([[String: String]].self, from: Data(python.utf8))
                #expect(Set(read.compactMap { $0["n"] }) == expected && read.count == 12)
                // The revoked reader's key opens none of the stored fields, nor any link.
                let stored = try await writer.authenticated(
                    .POST,
                    E3DBPath.search.render(),
                    body: QueryParams(count: 100, types: [Self.type], writerIDs: [writer.configuration.clientID]).wire,
                    success: [200],
                    as: SearchResponse.self
                ).results
                #expect(stored.count == 12)
                for result in stored {
                    let fields = try (result.recordData ?? [:]).values.map { try EncryptedField(wireFormat: $0) }
                    #expect(!fields.contains { FieldCipher.isSealed($0, under: stolen) })
                }
                let path = E3DBPath.accessKeyGeneration.render(writerID, writerID, Self.type)
                let state = try await writer.authenticated(
                    .GET,
                    path,
                    success: [200],
                    as: AccessKeyGenerationResponse.self
                )
                #expect(state.links?.map(\.generation) == [3, 2])
                for link in state.links ?? [] {
                    #expect(throws: CryptoError.self) {
                        try stolen.openLink(EncryptedAccessKey(wireFormat: link.previous))
                    }
                }
            }
        }
    }

    @Test(
        "a second device of the writer, its key a generation behind, writes, updates and shares under the new key",
        arguments: TestEngine.available
    )
    func secondDevice(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let laptop = try await ClientTestServer.client(url, "writer")
                let phone = try Client(configuration: laptop.configuration, options: ClientTestServer.unhurried)
                let kept = try await ClientTestServer.client(url, "kept")
                let revoked = try await ClientTestServer.client(url, "revoked")
                let late = try await ClientTestServer.client(url, "late")
                let pythonID = try await peer.register()
                let writerID = laptop.configuration.clientID.uuidString.lowercased()
                let first = try await laptop.write(type: Self.type, data: ["n": "0"])
                for reader in [kept.configuration.clientID, revoked.configuration.clientID, pythonID] {
                    try await laptop.share(type: Self.type, readerID: reader)
                }
                // The phone reads and writes under generation 1, and keeps that key cached.
                let before = try await phone.write(type: Self.type, data: ["n": "1"])
                let stolen = try await revoked.readerKey(writerID: writerID, userID: writerID, type: Self.type)

                let report = try #require(
                    try await laptop.revoke(type: Self.type, readerID: revoked.configuration.clientID)
                )
                #expect(report.generation == 2 && report.recordsRewrapped == 2, "\(report)")

                // The phone's writes are fenced: refused under generation 1, sealed again under 2, never left behind.
                let written = try await phone.write(type: Self.type, data: ["n": "2"])
                let current = try await phone.read(recordID: before.meta.recordID)
                _ = try await phone.update(meta: current.meta, newData: ["n": "3"])
                try await phone.share(type: Self.type, readerID: late.configuration.clientID)
                let stored = try await laptop.authenticated(
                    .POST,
                    E3DBPath.search.render(),
                    body: QueryParams(count: 100, types: [Self.type], writerIDs: [laptop.configuration.clientID]).wire,
                    success: [200],
                    as: SearchResponse.self
                ).results
                #expect(stored.count == 3)
                for result in stored {
                    let fields = try (result.recordData ?? [:]).values.map { try EncryptedField(wireFormat: $0) }
                    #expect(!fields.contains { FieldCipher.isSealed($0, under: stolen) }, "\(result.meta.recordID)")
                }
                let expected: Set = ["0", "2", "3"]
                for reader in [kept, late] {
                    let page = try await reader.query(
                        QueryParams(count: 100, types: [Self.type], writerIDs: [laptop.configuration.clientID])
                    )
                    #expect(Set(page.records.compactMap { $0.data["n"] }) == expected)
                }
                let python = try await peer.run(["read-type", peer.config, writerID, Self.type])
                let read = try JSONDecoder().decode([[String: String]].self, from: Data(python.utf8))
                #expect(Set(read.compactMap { $0["n"] }) == expected && read.count == 3)
                #expect(written.meta.recordID != first.meta.recordID)
            }
        }
    }

    @Test(
        "a share beside a rotation by another device: the new reader ends up with the key every later record is under",
        arguments: TestEngine.available
    )
    func shareBesideRotation(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let laptop = try await ClientTestServer.client(url, "writer")
            let phone = try Client(configuration: laptop.configuration, options: ClientTestServer.unhurried)
            let kept = try await ClientTestServer.client(url, "kept")
            for round in 0..<10 {
                let type = "raced-\(round)"
                _ = try await laptop.write(type: type, data: ["n": "0"])
                try await laptop.share(type: type, readerID: kept.configuration.clientID)
                _ = try await phone.write(type: type, data: ["n": "1"])  // the phone caches generation 1
                let late = try await ClientTestServer.client(url, "late-\(round)")
                async let shared: Void = phone.share(type: type, readerID: late.configuration.clientID)
                async let rotated = laptop.rotateAccessKey(type: type)
                _ = try await (shared, rotated)
                let written = try await laptop.write(type: type, data: ["n": "2"])
                #expect(try await late.read(recordID: written.meta.recordID).data["n"] == "2", "round \(round)")
                #expect(try await kept.read(recordID: written.meta.recordID).data["n"] == "2", "round \(round)")
            }
        }
    }

    @Test("rotate: false and a type never written keep the old revoke: generation 1, no key sealed again")
    func withoutRotation() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let writer = try await ClientTestServer.client(url, "writer")
            let reader = try await ClientTestServer.client(url, "reader")
            _ = try await writer.write(type: "plain-revoke", data: ["n": "1"])
            try await writer.share(type: "plain-revoke", readerID: reader.configuration.clientID)
            #expect(
                try await writer.revoke(type: "plain-revoke", readerID: reader.configuration.clientID, rotate: false)
                    == nil
            )
            #expect(try await writer.revoke(type: "never-written", readerID: reader.configuration.clientID) == nil)
            let path = E3DBPath.accessKeyGeneration.render(
                writer.configuration.clientID.uuidString.lowercased(),
                writer.configuration.clientID.uuidString.lowercased(),
                "plain-revoke"
            )
            let state = try await writer.authenticated(.GET, path, success: [200], as: AccessKeyGenerationResponse.self)
            #expect(state.generation == 1 && state.readers == [writer.configuration.clientID.uuidString.lowercased()])
        }
    }
}
