// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomTesting
import Testing

@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct ClientFileTests {
    /// Thread-safe record of progress reports.
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [FileTransferProgress] = []
        func add(_ report: FileTransferProgress) { lock.withLock { storage.append(report) } }
        var all: [FileTransferProgress] { lock.withLock { storage } }
    }

    @Test(
        "a multi-block file goes up and comes back identical, with progress for every stage",
        arguments: TestEngine.available
    )
    func roundTrip(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            try await withTemporaryDirectory { directory in
                let client = try await ClientTestServer.client(url)
                let source = directory.appending(path: "scan.pdf")
                let bytes = SecureRandom.data(count: 3 * 1_048_576 + 123)
                try bytes.write(to: source)
                let reports = Reports()
                let info = try await client.writeFile(type: "scans", fileURL: source, plain: ["kind": "pdf"]) {
                    reports.add($0)
                }
                #expect(info.fileName == "scan.pdf")
                #expect(info.meta.plain == ["kind": "pdf"])
                let destination = directory.appending(path: "copy.pdf")
                let read = try await client.readFile(recordID: info.meta.recordID, destination: destination) {
                    reports.add($0)
                }
                #expect(read.checksum == info.checksum)
                #expect(try Data(contentsOf: destination) == bytes)
                // A file record reads as one, in read and in a query: no fields, its file in fileMeta.
                let record = try await client.read(recordID: info.meta.recordID)
                #expect(record.data.isEmpty)
                let expected = Meta.FileMeta(size: info.size, checksum: info.checksum, fileName: "scan.pdf")
                #expect(record.meta.fileMeta == expected)
                let queried = try await client.query(QueryParams(types: ["scans"]))
                #expect(queried.records.map(\.meta.fileMeta) == [expected])
                let plain = try await client.write(type: "scans-not", data: ["a": "b"])
                #expect(plain.meta.fileMeta == nil)
                let stages = Set(
                    reports.all.map { report -> String in
                        switch report {
                        case .encrypting: "encrypting"
                        case .uploading: "uploading"
                        case .downloading: "downloading"
                        case .decrypting: "decrypting"
                        }
                    }
                )
                #expect(stages == ["encrypting", "uploading", "downloading", "decrypting"])
                #expect(reports.all.contains(.uploading(info.size)))
            }
        }
    }

    @Test("a file from a stream cut short by cancellation fails as cancelled and leaves no record")
    func cancelledStream() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let client = try await ClientTestServer.client(url)
            // One chunk arrives, then the sender stalls for good: the stream ends only because the task is cancelled.
            let (contents, sender) = AsyncThrowingStream.makeStream(of: [UInt8].self)
            sender.yield(Array(repeating: 7, count: 100_000))
            let writing = Task {
                try await client.writeFile(type: "cut", plain: [:], fileName: "cut", contents: contents)
            }
            writing.cancel()
            let error = await #expect(throws: ClientError.self) { try await writing.value }
            #expect(error?.code == .cancelled)
            sender.finish()
            #expect(try await client.query(QueryParams(types: ["cut"])).records.isEmpty)
        }
    }

    @Test(
        "a shared reader downloads the file; an empty file works; an existing destination is kept unless overwrite"
    )
    func sharingAndEdges() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { directory in
                let writer = try await ClientTestServer.client(url, "writer")
                let reader = try await ClientTestServer.client(url, "reader")
                let empty = directory.appending(path: "empty")
                try Data().write(to: empty)
                let info = try await writer.writeFile(type: "docs", fileURL: empty)
                try await writer.share(type: "docs", readerID: reader.configuration.clientID)
                let copy = directory.appending(path: "copy")
                try await reader.readFile(recordID: info.meta.recordID, destination: copy)
                #expect(try Data(contentsOf: copy).isEmpty)
                let error = await #expect(throws: ClientError.self) {
                    try await reader.readFile(recordID: info.meta.recordID, destination: copy)
                }
                #expect(error?.code == .badRequest)
                let stranger = try await ClientTestServer.client(url, "stranger")
                let refused = await #expect(throws: ClientError.self) {
                    try await stranger.readFile(
                        recordID: info.meta.recordID,
                        destination: directory.appending(path: "x")
                    )
                }
                #expect(refused?.code == .forbidden)
                #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "x").path))

                // overwrite: true replaces an existing file once the download authenticated; a failure keeps it.
                let old = directory.appending(path: "old")
                try Data("old contents".utf8).write(to: old)
                let failed = await #expect(throws: ClientError.self) {
                    try await stranger.readFile(recordID: info.meta.recordID, destination: old, overwrite: true)
                }
                #expect(failed?.code == .forbidden)
                #expect(try Data(contentsOf: old) == Data("old contents".utf8))
                try await reader.readFile(recordID: info.meta.recordID, destination: old, overwrite: true)
                #expect(try Data(contentsOf: old).isEmpty)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                #expect(!leftovers.contains { $0.hasSuffix("strongroom-part") }, "\(leftovers)")
            }
        }
    }

    @Test("a stored file with one byte changed downloads as tampered and leaves no destination file")
    func tamperedDownload() async throws {
        try await ServerProcess.withServer(
            engine: .sqlite,
            arguments: ["--registration-token", ClientTestServer.registrationToken]
        ) { server, storage in
            try await withTemporaryDirectory { directory in
                let client = try await ClientTestServer.client(try #require(URL(string: server.baseURL)))
                let source = directory.appending(path: "plain.bin")
                try SecureRandom.data(count: 700_000).write(to: source)
                let info = try await client.writeFile(type: "tamper", fileURL: source)
                // The folder blob store keeps the ciphertext as one file of the record's size under the data folder.
                let data = URL(fileURLWithPath: try #require(storage.last))
                let blobs = try #require(FileManager.default.enumerator(at: data, includingPropertiesForKeys: nil))
                    .compactMap { $0 as? URL }
                    .filter {
                        (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) == Int(info.size)
                    }
                let blob = try #require(blobs.first)
                var stored = try Data(contentsOf: blob)
                stored[stored.count / 2] ^= 0x01
                try stored.write(to: blob)
                let destination = directory.appending(path: "copy.bin")
                let error = await #expect(throws: ClientError.self) {
                    try await client.readFile(recordID: info.meta.recordID, destination: destination)
                }
                #expect(error?.code == .tampered)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                #expect(leftovers == ["plain.bin"])
            }
        }
    }

    @Test("files cross between the Swift client and the official Python SDK in both directions")
    func interop() async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { directory in
                let peer = PythonPeer(url: url, directory: directory)
                let config = peer.config
                func python(_ arguments: [String]) async throws -> String { try await peer.run(arguments) }
                let swift = try await ClientTestServer.client(url)
                let pythonID = try #require(UUID(uuidString: try await python(["register", config])))
                let bytes = SecureRandom.data(count: 200_000)
                let source = directory.appending(path: "from-python.bin")
                try bytes.write(to: source)

                // Python → Swift
                let recordID = try #require(
                    UUID(
                        uuidString: try await python([
                            "write-file", config, source.path, swift.configuration.clientID.uuidString.lowercased(),
                        ])
                    )
                )
                let copy = directory.appending(path: "swift-copy.bin")
                try await swift.readFile(recordID: recordID, destination: copy)
                #expect(try Data(contentsOf: copy) == bytes)

                // Swift → Python
                try await swift.share(type: "swift-file", readerID: pythonID)
                let info = try await swift.writeFile(type: "swift-file", fileURL: source)
                let pythonCopy = directory.appending(path: "python-copy.bin")
                _ = try await python(["read-file", config, info.meta.recordID.uuidString.lowercased(), pythonCopy.path])
                #expect(try Data(contentsOf: pythonCopy) == bytes)
            }
        }
    }
}
