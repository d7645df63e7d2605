// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomTesting
import StrongroomWire
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL against the real `strongroom store` command: during a burst of writes, nothing acknowledged is
/// lost; during a rekey, the store opens with the old key or the new one, never neither. Afterwards every page
/// authenticates (`cipher_integrity_check`).
@Suite struct DatastoreCrashTests {
    static var cli: URL { ServerProcess.executable.deletingLastPathComponent().appending(path: "strongroom") }

    /// Writes a fresh 32-byte key file as `strongroom keys access-key` does, and returns its provider.
    /// Starts `strongroom <arguments>`, SIGKILLs it after `milliseconds`, and waits for it to be gone.
    static func killCLI(_ arguments: [String], after milliseconds: Int) async throws {
        let process = ChildProcess()
        process.executableURL = cli
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: .milliseconds(milliseconds))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    static func keyFile(_ url: URL) throws -> SimpleKeyProvider {
        let bytes = SecureRandom.data(count: 32)
        try AtomicFile.write(Data((Base64URL.encode(bytes) + "\n").utf8), to: url.path, mode: .createNew)
        return SimpleKeyProvider(key: try EncryptionKey(bytes))
    }

    @Test("SIGKILL during a burst of writes loses no acknowledged document", arguments: StoreKind.allCases)
    func killDuringWrites(kind: StoreKind) async throws {
        signal(SIGPIPE, SIG_IGN)  // the child's stdin closes under the writer when it is killed
        try await withTemporaryDirectory { directory in
            let keyURL = directory.appending(path: "key")
            let provider = try Self.keyFile(keyURL)
            let keyArguments = kind == .encrypted ? ["--key-file", keyURL.path] : ["--unencrypted"]
            let process = ChildProcess()
            process.executableURL = Self.cli
            process.arguments =
                [
                    "store", "import", "--create", "--directory", directory.appending(path: "stores").path, "--name",
                    "crash",
                ]
                + keyArguments
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()

            let acknowledged: [(String, String)] = await withCheckedContinuation { continuation in
                Thread {
                    Thread {  // the writer: far more lines than will be acknowledged before the kill
                        for index in 0..<50_000 {
                            let line = "{\"_id\":\"doc-\(index)\",\"\(Canary.field)\":\"\(Canary.value) \(index)\"}\n"
                            guard (try? input.fileHandleForWriting.write(contentsOf: Data(line.utf8))) != nil else {
                                return
                            }
                        }
                    }.start()
                    var acks: [(String, String)] = []
                    var pending = Data()
                    let reader = output.fileHandleForReading
                    while let chunk = try? reader.read(upToCount: 4096), !chunk.isEmpty {
                        pending.append(chunk)
                        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            let parts = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
                            pending.removeSubrange(...newline)
                            if parts.count == 2 { acks.append((String(parts[0]), String(parts[1]))) }
                            if acks.count == 300 { kill(process.processIdentifier, SIGKILL) }
                        }
                    }
                    continuation.resume(returning: acks)
                }.start()
            }
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(acknowledged.count >= 300)

            let manager = try DatastoreManager(directory: directory.appending(path: "stores"))
            let store =
                kind == .encrypted
                ? try await manager.datastore(named: "crash", keyProvider: provider)
                : try manager.datastore(named: "crash")
            #expect(try await store.integrityCheck().isEmpty)
            let found = try await store.documents(ids: acknowledged.map(\.0))
            #expect(found.count == acknowledged.count)
            #expect(zip(found, acknowledged).allSatisfy { $0.docID == $1.0 && $0.revID == $1.1 })
            await store.close()
            if kind == .encrypted {
                let findings = try PlaintextScan.scan(directory.appending(path: "stores"), for: Canary.all)
                #expect(findings.isEmpty, "\(findings)")
            }
        }
    }

    @Test("SIGKILL during rekey leaves a store that opens with the old key or the new one, complete")
    func killDuringRekey() async throws {
        try await withTemporaryDirectory { directory in
            let stores = directory.appending(path: "stores")
            var current = (
                url: directory.appending(path: "key-0"), provider: try Self.keyFile(directory.appending(path: "key-0"))
            )
            let manager = try DatastoreManager(directory: stores)
            let seeded = try await manager.datastore(named: "rekey", keyProvider: current.provider)
            // About 25 MB, so that rewriting every page takes a good part of a second and the kills land inside it.
            let padding = JSONValue.string(String(repeating: "p", count: 1000))
            var body = Canary.body
            body["padding"] = padding
            for start in stride(from: 0, to: 20_000, by: 10_000) {
                try await seeded.bulkWrite((start..<start + 10_000).map { .create(id: "doc-\($0)", body: body) })
            }
            await seeded.close()

            for (round, delay) in [0, 90, 130, 170, 210, 250, 800].enumerated() {
                let next = directory.appending(path: "key-\(round + 1)")
                let nextProvider = try Self.keyFile(next)
                try await Self.killCLI(
                    [
                        "store", "rekey", "--directory", stores.path, "--name", "rekey",
                        "--key-file", current.url.path, "--new-key-file", next.path,
                    ],
                    after: delay
                )

                let store: Datastore
                do {
                    store = try await manager.datastore(named: "rekey", keyProvider: current.provider)
                } catch let error as DatastoreError where error.code == .wrongKey {
                    store = try await manager.datastore(named: "rekey", keyProvider: nextProvider)
                    current = (next, nextProvider)
                }
                let problems = try await store.integrityCheck()
                #expect(problems.isEmpty, "round \(round): \(problems.prefix(5))")
                #expect(try await store.documentCount() == 20_000, "round \(round)")
                await store.close()
            }
        }
    }

    @Test("SIGKILL while attaching a large file leaves no visible attachment, and compaction removes the body")
    func killDuringAttach() async throws {
        try await withTemporaryDirectory { directory in
            let stores = directory.appending(path: "stores")
            let keyURL = directory.appending(path: "key")
            let provider = try Self.keyFile(keyURL)
            let manager = try DatastoreManager(directory: stores)
            let store = try await manager.datastore(named: "attach", keyProvider: provider)
            let original = try await store.createDocument(id: "doc", body: Canary.body)
            await store.close()
            let big = directory.appending(path: "big.bin")
            try Data(repeating: 0x41, count: 64 << 20).write(to: big)

            var committed = 0
            for delay in [30, 150, 400, 900, 5000] {
                try await Self.killCLI(
                    [
                        "store", "attach", "--directory", stores.path, "--name", "attach", "--key-file", keyURL.path,
                        "--id", "doc", "--attachment", "big-\(delay)", big.path,
                    ],
                    after: delay
                )

                let reopened = try await manager.datastore(named: "attach", keyProvider: provider)
                #expect(try await reopened.integrityCheck().isEmpty)
                let current = try await reopened.document(id: "doc")
                #expect(current.body == original.body)
                if let attachment = current.attachments["big-\(delay)"] {
                    committed += 1
                    #expect(attachment.length == 64 << 20)  // visible only when complete
                }
                try await reopened.compact()
                let files =
                    (try? FileManager.default.contentsOfDirectory(
                        atPath: stores.appending(path: "attach/attachments").path
                    ))
                    ?? []
                #expect(files.count == current.attachments.count, "only referenced bodies stay: \(files)")
                await reopened.close()
            }
            #expect(committed <= 5)
        }
    }
}
