// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomTesting
import Testing

/// The `strongroom` command killed at seeded crash points (``CrashPoints``: just before its Nth durable file
/// operation) while it imports documents, rekeys a datastore, attaches a file, and stores a keychain item. Every run
/// ends with a store that opens, passes its integrity check and holds everything that was acknowledged; nothing is
/// half-visible. `Scripts/crash-points.sh` runs many more points than CI's.
@Suite struct CrashPointTests {
    static let documents = 100

    @Test("import: every acknowledged document survives a kill at any operation")
    func importDocuments() async throws {
        let lines = (0..<Self.documents).map { index in
            "{\"_id\":\"doc-\(index)\",\"\(Canary.field)\":\"\(Canary.value) \(index)\"}\n"
        }.joined()
        try await Self.run(workload: "store import") { directory, shim in
            let (stores, key, provider) = try await Self.makeStore(in: directory)
            let outcome = try await Self.strongroom(
                ["store", "import", "--directory", stores.path, "--name", "crash", "--key-file", key.path],
                shim: shim,
                input: lines
            )
            let acknowledged = outcome.output.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: " ")
                return parts.count == 2 && parts[0].hasPrefix("doc-") ? (String(parts[0]), String(parts[1])) : nil
            }
            let store = try await DatastoreManager(directory: stores).datastore(named: "crash", keyProvider: provider)
            #expect(try await store.integrityCheck().isEmpty, "\(shim)")
            let found = try await store.documents(ids: acknowledged.map(\.0))
            #expect(found.map(\.revID) == acknowledged.map(\.1), "\(shim): an acknowledged document is missing")
            #expect(try await store.documentCount() <= Self.documents)
            await store.close()
            #expect(try PlaintextScan.scan(stores, for: Canary.all).isEmpty, "\(shim)")
            return outcome
        }
    }

    @Test("rekey: the store opens, complete, under the old key or the new one after a kill at any operation")
    func rekey() async throws {
        try await Self.run(workload: "store rekey") { directory, shim in
            let (stores, key, provider) = try await Self.makeStore(in: directory)
            let seeded = try await DatastoreManager(directory: stores).datastore(named: "crash", keyProvider: provider)
            try await seeded.bulkWrite((0..<Self.documents).map { .create(id: "doc-\($0)", body: Canary.body) })
            await seeded.close()
            let newKey = directory.appending(path: "new-key")
            let newProvider = try DatastoreCrashTests.keyFile(newKey)
            let outcome = try await Self.strongroom(
                [
                    "store", "rekey", "--directory", stores.path, "--name", "crash", "--key-file", key.path,
                    "--new-key-file", newKey.path,
                ],
                shim: shim
            )
            let manager = try DatastoreManager(directory: stores)
            let store: Datastore
            do {
                store = try await manager.datastore(named: "crash", keyProvider: provider)
            } catch let error as DatastoreError where error.code == .wrongKey {
                store = try await manager.datastore(named: "crash", keyProvider: newProvider)
            }
            #expect(try await store.integrityCheck().isEmpty, "\(shim)")
            #expect(try await store.documentCount() == Self.documents, "\(shim)")
            await store.close()
            return outcome
        }
    }

    @Test(
        "attach: the attachment is whole or absent after a kill at any operation, and compaction keeps only bodies in use"
    )
    func attach() async throws {
        let body = Array(repeating: Array(Canary.value.utf8), count: 40_000).flatMap { $0 }
        try await Self.run(workload: "store attach") { directory, shim in
            let (stores, key, provider) = try await Self.makeStore(in: directory)
            let manager = try DatastoreManager(directory: stores)
            let seeded = try await manager.datastore(named: "crash", keyProvider: provider)
            let original = try await seeded.createDocument(id: "doc", body: Canary.body)
            await seeded.close()
            let file = directory.appending(path: "report.bin")
            try Data(body).write(to: file)
            let outcome = try await Self.strongroom(
                [
                    "store", "attach", "--directory", stores.path, "--name", "crash", "--key-file", key.path, "--id",
                    "doc", "--attachment", "report", file.path,
                ],
                shim: shim
            )
            let store = try await manager.datastore(named: "crash", keyProvider: provider)
            #expect(try await store.integrityCheck().isEmpty, "\(shim)")
            let current = try await store.document(id: "doc")
            #expect(current.body == original.body, "\(shim)")
            if current.attachments["report"] != nil {
                var read: [UInt8] = []
                for try await chunk in store.attachmentContents(named: "report", of: current) { read += chunk }
                #expect(read == body, "\(shim): a visible attachment must be complete")
            }
            try await store.compact()
            let left = (try? FileManager.default.contentsOfDirectory(atPath: stores.path + "/crash/attachments")) ?? []
            #expect(left.count == current.attachments.count, "\(shim): only referenced bodies stay: \(left)")
            await store.close()
            #expect(try PlaintextScan.scan(stores, for: Canary.all).isEmpty, "\(shim)")
            return outcome
        }
    }

    @Test("keychain store: the keychain opens with every earlier item, and the new one whole or absent")
    func keychainStore() async throws {
        try await Self.run(workload: "keychain store") { directory, shim in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let keychain = directory.appending(path: "keychain")
            let passphrase = directory.appending(path: "passphrase")
            try Data("crash-point passphrase\n".utf8).write(to: passphrase)
            let common = ["--keychain-file", keychain.path, "--passphrase-file", passphrase.path]
            let create = try await Self.strongroom(["keychain", "create", "--kdf", "interactive"] + common)
            try #require(create.status == 0, "\(create.output)")
            let kept = try await Self.strongroom(
                ["keychain", "store", "--account", "kept"] + common,
                input: "\(Canary.value) kept"
            )
            try #require(kept.status == 0, "\(kept.output)")
            let outcome = try await Self.strongroom(
                ["keychain", "store", "--account", "new"] + common,
                shim: shim,
                input: "\(Canary.value) new"
            )
            let list = try await Self.strongroom(["keychain", "list"] + common)
            #expect(list.status == 0, "\(shim): \(list.output)")
            let keptNow = try await Self.strongroom(["keychain", "get", "--account", "kept"] + common)
            #expect(keptNow.status == 0 && keptNow.output.contains("\(Canary.value) kept"), "\(shim)")
            let new = try await Self.strongroom(["keychain", "get", "--account", "new"] + common)
            #expect(
                (new.status == 0 && new.output.contains("\(Canary.value) new")) || new.status == 7,
                "\(shim): \(new.status) \(new.output)"
            )
            if outcome.status == 0 && !outcome.signalled {
                #expect(new.status == 0, "\(shim): an acknowledged item is missing")
            }
            #expect(try PlaintextScan.scan(directory, for: Canary.all).isEmpty, "\(shim)")
            return outcome
        }
    }

    // MARK: Running a workload at its crash points

    /// Where a run crashes.
    struct Crash: CustomStringConvertible {
        var workload: String
        var point: Int
        var total: Int
        var description: String { CrashPoints.describe(workload: workload, point: point, total: total) }
    }

    /// What the command under test runs with: the counting run's shim, or a crash point.
    enum Shim: CustomStringConvertible {
        case counting(URL)
        case crashing(Crash)

        var description: String {
            switch self {
            case .counting: "the counting run"
            case .crashing(let crash): crash.description
            }
        }
    }

    /// Runs `body` once counting the workload's operations (it must succeed), then once per seeded point, each in a
    /// fresh folder. `body` passes its shim to the one command under test and returns how that command ended.
    static func run(
        workload: String,
        _ body: @escaping @Sendable (URL, Shim) async throws -> ExternalProcess.Outcome
    ) async throws {
        let total = try await withTemporaryDirectory { directory in
            let countFile = directory.appending(path: "operations")
            let outcome = try await body(directory.appending(path: "work"), .counting(countFile))
            try #require(outcome.status == 0 && !outcome.signalled, "\(workload) failed without a crash")
            return try CrashPoints.count(in: countFile)
        }
        let points = CrashPoints.points(total: total, workload: workload)
        print("crash points: \(workload): \(total) operations, seed \(CrashPoints.seed), killed before \(points)")
        for point in points {
            let crash = Crash(workload: workload, point: point, total: total)
            try await withTemporaryDirectory { directory in
                let outcome = try await body(directory.appending(path: "work"), .crashing(crash))
                // Killed, or finished before the point: a command can end with fewer operations than counted.
                #expect(outcome.signalled || outcome.status == 0, "\(crash): exit \(outcome.status)")
            }
        }
    }

    /// Runs `strongroom`, under `shim` when given.
    static func strongroom(
        _ arguments: [String],
        shim: Shim? = nil,
        input: String? = nil
    ) async throws
        -> ExternalProcess.Outcome
    {
        var environment: [String: String] = [:]
        switch shim {
        case .counting(let countFile)?:
            environment = CrashPoints.environment(
                library: try await CrashPoints.library(),
                crashAt: nil,
                countFile: countFile
            )
        case .crashing(let crash)?:
            environment = CrashPoints.environment(library: try await CrashPoints.library(), crashAt: crash.point)
        case nil: break
        }
        return try await ExternalProcess.run(
            DatastoreCrashTests.cli,
            arguments: arguments,
            environment: environment,
            input: input ?? ""
        )
    }

    /// A fresh encrypted datastore `crash` in `directory/stores`, under a new key file; its folder, key file and
    /// key provider.
    static func makeStore(in directory: URL) async throws -> (URL, URL, SimpleKeyProvider) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stores = directory.appending(path: "stores")
        let key = directory.appending(path: "key")
        let provider = try DatastoreCrashTests.keyFile(key)
        let store = try await DatastoreManager(directory: stores).datastore(named: "crash", keyProvider: provider)
        await store.close()
        return (stores, key, provider)
    }
}
