// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Synchronization
import Testing

@testable import StrongroomClient

/// A malicious server against the re-wrap of a rotated type's files (docs/design/Revocation.md, "Files"). The
/// server holds no access key: it can withhold a file's re-wrap (claim it and keep serving the old prologue), which
/// leaves the file to the Strongroom readers, who open it through the links, until the writer's next
/// `finishKeyRotation`; it discloses nothing to the revoked reader, whose key opens no file written after its
/// revocation (sealed under the new key when it was written, by the writer alone).
@Suite struct HostileFileRotationTests {
    @Test("a server that claims a file re-wrap it never stored: readers still read, the revoked key opens nothing new")
    func droppedFileRewrap() async throws {
        try await ServerProcess.withServer(engine: .sqlite, arguments: ["--registration-token", "hostile"]) {
            server,
            _ in
            try await withTemporaryDirectory { folder in
                let url = try #require(URL(string: server.baseURL))
                let writerConfiguration = try await Client.register(token: "hostile", clientName: "writer", apiURL: url)
                let honest = Client(configuration: writerConfiguration)
                let reader = Client(
                    configuration: try await Client.register(token: "hostile", clientName: "reader", apiURL: url)
                )
                let revoked = Client(
                    configuration: try await Client.register(token: "hostile", clientName: "revoked", apiURL: url)
                )
                let writerID = writerConfiguration.clientID.uuidString.lowercased()
                var contents: [UUID: Data] = [:]
                for index in 0..<2 {
                    let plain = folder.appendingPathComponent("old-\(index)")
                    try Data("file \(index) before the revoke".utf8).write(to: plain)
                    contents[try await honest.writeFile(type: "filed", fileURL: plain).meta.recordID] =
                        try Data(contentsOf: plain)
                }
                for id in [reader.configuration.clientID, revoked.configuration.clientID] {
                    try await honest.share(type: "filed", readerID: id)
                }
                let first = try #require(contents.keys.first)
                try await revoked.readFile(recordID: first, destination: folder.appendingPathComponent("stolen"))
                let stolen = try await revoked.readerKey(writerID: writerID, userID: writerID, type: "filed")

                let written = Mutex<UUID?>(nil)
                // The proxy answers every file re-wrap with a success it never forwards.
                try await HostileServer.with(
                    upstream: url,
                    intercept: { method, path, _ in
                        guard method == "PUT", path.hasPrefix("/v2/storage/files/"), path.hasSuffix("/key") else {
                            return nil
                        }
                        let id = path.split(separator: "/")[3]
                        return Data(#"{"record_id":"\#(id)","version":"claimed","checksum":"claimed"}"#.utf8)
                    },
                    tamper: { _, _, response in .answer(response) }
                ) { proxy in
                    var through = writerConfiguration
                    through.apiURL = proxy
                    let writer = Client(configuration: through)
                    _ = try await writer.revoke(type: "filed", readerID: revoked.configuration.clientID)
                    let after = folder.appendingPathComponent("after")
                    try Data("written after the revoke".utf8).write(to: after)
                    written.withLock { $0 = nil }
                    let id = try await writer.writeFile(type: "filed", fileURL: after).meta.recordID
                    written.withLock { $0 = id }
                }
                contents[try #require(written.withLock { $0 })] = Data("written after the revoke".utf8)
                // Every file is still read by the remaining Strongroom reader (the old ones through the link); the
                // revoked key opens none of what the server serves for the file written after.
                for (id, expected) in contents {
                    let copy = folder.appendingPathComponent("read-\(id)")
                    try await reader.readFile(recordID: id, destination: copy)
                    #expect(try Data(contentsOf: copy) == expected)
                }
                var outOfReach = 0
                for id in contents.keys where try await !Self.opens(stolen, id, honest) { outOfReach += 1 }
                #expect(outOfReach == 1, "the server dropped both re-wraps: only the new file is out of its reach")
                // The writer's next finish, through the honest server, re-wraps what the server dropped.
                let finished = try await honest.finishKeyRotation(type: "filed")
                #expect(finished.recordsRewrapped == 2 && finished.recordsLeft == 0, "\(finished)")
                for id in contents.keys { #expect(try await !Self.opens(stolen, id, honest)) }
            }
        }
    }

    /// Whether `key` opens the key of file `id` as the server serves it to its writer now.
    static func opens(_ key: AccessKey, _ id: UUID, _ writer: Client) async throws -> Bool {
        let served = try await writer.fileKey(recordID: id.uuidString.lowercased())
        return (try? FileCipher.rewrapPrologue(served.prologue, from: [], to: key)) == .current
    }
}
