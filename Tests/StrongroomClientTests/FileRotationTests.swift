// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// A revoke that rotates re-wraps the type's files too (docs/design/Revocation.md, "Files"): each file's key is
/// sealed again in a new prologue the server serves in place of the stored one, so the official Python SDK, as a
/// remaining reader, reads every file of a rotated type with the newest key alone, and the revoked reader's key
/// opens no file's served key, re-wrapped or written after.
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct FileRotationTests {
    static let type = "rotating-files"

    /// Whether `key` opens the key of the file `recordID` as the server serves it now.
    static func opens(_ key: AccessKey, file recordID: UUID, servedTo writer: Client) async throws -> Bool {
        let served = try await writer.fileKey(recordID: recordID.uuidString.lowercased())
        return (try? FileCipher.rewrapPrologue(served.prologue, from: [], to: key)) == .current
    }

    @Test(
        "files written before two rotations: the Python SDK reads them all, the revoked keys open none",
        arguments: TestEngine.available
    )
    func filesAcrossRotations(engine: TestEngine) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let writer = try await ClientTestServer.client(url, "writer")
                let first = try await ClientTestServer.client(url, "first-revoked")
                let second = try await ClientTestServer.client(url, "second-revoked")
                let kept = try await ClientTestServer.client(url, "kept")
                let pythonID = try await peer.register()
                let writerID = writer.configuration.clientID.uuidString.lowercased()
                // An empty-ish file, one of exactly a chunk, one over several chunks.
                var contents: [UUID: Data] = [:]
                var old: [UUID] = []
                for (index, size) in [1, 65_536, 200_003].enumerated() {
                    let plain = directory.appendingPathComponent("old-\(index)")
                    let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
                    try bytes.write(to: plain)
                    let info = try await writer.writeFile(type: Self.type, fileURL: plain)
                    contents[info.meta.recordID] = bytes
                    old.append(info.meta.recordID)
                }
                _ = try await writer.write(type: Self.type, data: ["n": "a record beside the files"])
                for reader in [first, second, kept].map(\.configuration.clientID) + [pythonID] {
                    try await writer.share(type: Self.type, readerID: reader)
                }
                var stolen: [AccessKey] = []
                for thief in [first, second] {
                    let copy = directory.appendingPathComponent("thief-\(stolen.count)")
                    try await thief.readFile(recordID: old[0], destination: copy)
                    stolen.append(try await thief.readerKey(writerID: writerID, userID: writerID, type: Self.type))
                }

                let report = try #require(
                    try await writer.revoke(type: Self.type, readerID: first.configuration.clientID)
                )
                #expect(report.recordsRewrapped == 4 && report.recordsLeft == 0, "\(report)")
                // A file written between the rotations, then a second rotation: its key and the re-wrapped ones
                // are sealed again (a re-wrapped prologue replaced).
                let between = directory.appendingPathComponent("between")
                try Data("written between the rotations".utf8).write(to: between)
                let betweenInfo = try await writer.writeFile(type: Self.type, fileURL: between)
                contents[betweenInfo.meta.recordID] = try Data(contentsOf: between)
                let again = try #require(
                    try await writer.revoke(type: Self.type, readerID: second.configuration.clientID)
                )
                #expect(again.generation == 3 && again.recordsRewrapped == 5 && again.recordsLeft == 0, "\(again)")
                let late = directory.appendingPathComponent("late")
                try Data(repeating: 7, count: 70_000).write(to: late)
                let lateInfo = try await writer.writeFile(type: Self.type, fileURL: late)
                contents[lateInfo.meta.recordID] = try Data(contentsOf: late)
                #expect(try await writer.finishKeyRotation(type: Self.type).recordsRewrapped == 0)

                for id in contents.keys {
                    for key in stolen {
                        #expect(try await !Self.opens(key, file: id, servedTo: writer), "a revoked key opens \(id)")
                    }
                    // Every remaining reader reads every file: a Swift one, and the Python SDK with one key.
                    let swiftCopy = directory.appendingPathComponent("kept-\(id)")
                    try await kept.readFile(recordID: id, destination: swiftCopy)
                    #expect(try Data(contentsOf: swiftCopy) == contents[id])
                    let pythonCopy = directory.appendingPathComponent("python-\(id)")
                    _ = try await peer.run(["read-file", peer.config, id.uuidString.lowercased(), pythonCopy.path])
                    #expect(try Data(contentsOf: pythonCopy) == contents[id])
                }
            }
        }
    }

    @Test("the file key routes refuse what is not the writer's current re-wrap", arguments: TestEngine.available)
    func refusals(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let writer = try await ClientTestServer.client(url, "writer")
                let reader = try await ClientTestServer.client(url, "reader")
                let plain = directory.appendingPathComponent("plain")
                try Data("a file".utf8).write(to: plain)
                let info = try await writer.writeFile(type: Self.type, fileURL: plain)
                try await writer.share(type: Self.type, readerID: reader.configuration.clientID)
                let path = E3DBPath.fileKey.render(info.meta.recordID.uuidString.lowercased())
                let current = try await writer.authenticated(.GET, path, success: [200], as: FileKeyResponse.self)
                #expect(FilePrologue.isWellFormed(current.prologue) && current.version == info.meta.version)
                #expect(current.prologue.hasPrefix("3."))

                func put(_ client: Client, _ body: FileKeyRewrapRequest) async -> ClientError? {
                    do {
                        _ = try await client.authenticated(
                            .PUT,
                            path,
                            body: body,
                            success: [200],
                            as: FileKeyRewrapResponse.self
                        )
                        return nil
                    } catch { return error }
                }
                let fresh = try FileCipher.rewrapPrologue(
                    current.prologue,
                    from: [
                        try await writer.readerKey(
                            writerID: "\(writer.configuration.clientID)".lowercased(),
                            userID: "\(writer.configuration.clientID)".lowercased(),
                            type: Self.type
                        )
                    ],
                    to: AccessKey()
                )
                guard case .rewrapped(let prologue) = fresh else { Issue.record("not re-wrapped"); return }
                // Another client: 403; a reader cannot read it either.
                #expect(
                    await put(reader, .init(generation: 1, version: current.version, prologue: prologue))?.code
                        == .forbidden
                )
                await #expect(throws: ClientError.self) {
                    _ = try await reader.authenticated(.GET, path, success: [200], as: FileKeyResponse.self)
                }
                // A stale generation, a stale version, a malformed or resized prologue: refused, nothing stored.
                #expect(
                    await put(writer, .init(generation: 2, version: current.version, prologue: prologue))?
                        .isStaleKeyGeneration == true
                )
                #expect(
                    await put(writer, .init(generation: 1, version: "stale", prologue: prologue))?.code == .conflict
                )
                for bad in [
                    prologue + "A", String(prologue.dropLast()), "4" + prologue.dropFirst(),
                    prologue.replacingOccurrences(of: ".", with: "+"),
                ] {
                    #expect(
                        await put(writer, .init(generation: 1, version: current.version, prologue: bad))?.code
                            == .badRequest
                    )
                }
                let unchanged = try await writer.authenticated(.GET, path, success: [200], as: FileKeyResponse.self)
                #expect(unchanged == current)
                // The writer's own re-wrap at the current generation is taken: the file is served with it, its
                // checksum matching what is served.
                #expect(await put(writer, .init(generation: 1, version: current.version, prologue: prologue)) == nil)
                let served = try await writer.authenticated(.GET, path, success: [200], as: FileKeyResponse.self)
                #expect(served.prologue == prologue && served.version != current.version)
            }
        }
    }
}
