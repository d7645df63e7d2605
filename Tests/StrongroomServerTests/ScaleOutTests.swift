// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer
@testable import StrongroomServerS3

/// Several instances of the real server behind one PostgreSQL database, each with its own data directory: nothing
/// they share lives on a disk of their own.
@Suite(.enabled(if: TestEngine.available.contains(.postgres), "needs the PostgreSQL test cluster"))
struct ScaleOutTests {
    static let registrationToken = "scale-out-token"

    /// The shared blob stores: chunked rows in PostgreSQL, and an S3 bucket when the test object store runs.
    static var sharedStores: [BlobStorage] { [.database] + (TestBucket.isAvailable ? [.s3] : []) }

    @Test(
        "the official SDK writes a record and a 50 MiB file through one instance and reads both through another",
        arguments: sharedStores
    )
    func officialSDKAcrossInstances(blobs: BlobStorage) async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await withTwoInstances(blobs) { a, b, _ in
            let outcome = try await PythonSDK.run(
                [PythonSDK.path("Scripts/conformance/two_instances.py")],
                environment: [
                    "STRONGROOM_URL": a.baseURL, "STRONGROOM_URL_B": b.baseURL,
                    "REGISTRATION_TOKEN": Self.registrationToken,
                ]
            )
            #expect(outcome.status == 0, "\(outcome.output)")
            #expect(outcome.output.contains("record read through B"), "\(outcome.output)")
            #expect(outcome.output.contains("file identical through B"), "\(outcome.output)")
        }
    }

    @Test("a TSV1 request one instance accepted is refused when replayed against another; tokens work on both")
    func replayAcrossInstances() async throws {
        try await withTwoInstances(.database) { a, b, _ in
            let client = try await HTTP(base: a.baseURL).register(token: Self.registrationToken)
            let path = "/v1/storage/policy/outgoing"
            let header = TSV1.authorization(
                for: .init(method: "GET", path: path),
                clientID: client.id,
                signingKey: client.keys.signingKey
            )
            let none: String? = nil
            #expect(try await HTTP(base: a.baseURL).send("GET", path, authorization: header, json: none).0 == 200)
            #expect(try await HTTP(base: b.baseURL).send("GET", path, authorization: header, json: none).0 == 401)
            // A bearer token from one instance is good on the other (one token key for the deployment).
            #expect(try await HTTP(base: b.baseURL).send("GET", path, token: client.token, json: none).0 == 200)
        }
    }

    @Test("failed credential attempts count for the deployment: three through A and B, then both answer 429")
    func failuresCountAcrossInstances() async throws {
        try await withTwoInstances(.database, extra: ["--authentication-failures-per-minute", "3"]) {
            a,
            b,
            _ async throws in
            let none: String? = nil
            func attempt(_ instance: ServerProcess) async throws -> Int {
                try await HTTP(base: instance.baseURL).send(
                    "POST",
                    "/v1/auth/token",
                    authorization: "Basic " + Data("nobody:wrong".utf8).base64EncodedString(),
                    json: none
                ).0
            }
            // The count is per minute of the servers' clocks: a round the machine stretched past 50 s (a busy CI
            // machine) is run again after the window has passed, so the test does not depend on the machine's speed.
            for round in 1...3 {
                let start = ContinuousClock.now
                let first = [try await attempt(a), try await attempt(b), try await attempt(a)]
                let then = [try await attempt(b), try await attempt(a)]
                if ContinuousClock.now - start < .seconds(50) || round == 3 {
                    #expect(first == [401, 401, 401])
                    #expect(then == [429, 429], "B counts A's failures")
                    return
                }
                try await Task.sleep(for: .seconds(61))
            }
        }
    }

    @Test(
        "an instance killed mid-upload leaves no visible file, and the sweep leaves no chunk behind",
        arguments: sharedStores
    )
    func killedMidUpload(blobs: BlobStorage) async throws {
        try await withTwoInstances(blobs) { a, b, storage in
            let http = HTTP(base: a.baseURL)
            let client = try await http.register(token: Self.registrationToken)
            let size = 8 << 20
            let create = FileWriteRequest(
                meta: .init(
                    writerID: client.id,
                    userID: client.id,
                    type: "killed",
                    plain: [:],
                    fileMeta: FileMeta(checksum: "1B2M2Y8AsgTpgAmY7PhCfg==", compression: "raw", size: Int64(size))
                )
            )
            let (status, body) = try await http.send("POST", "/v1/storage/files", token: client.token, json: create)
            try #require(status == 202)
            let pending = try JSONDecoder().decode(PendingFileResponse.self, from: body)
            let url = try #require(URLComponents(string: pending.fileURL))
            let target = url.path + "?" + (url.percentEncodedQuery ?? "")

            // Six of eight MiB arrive (S3: more than one 5 MiB part, so a multipart upload has begun); once they
            // are in the store, instance A dies.
            let connection = try await RawConnection(
                port: a.port,
                sending: "PUT \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(size)\r\n\r\n"
            )
            let piece = String(repeating: "c", count: 1 << 20)
            for _ in 0..<6 { #expect(await connection.send(piece)) }
            var stored = 0
            for _ in 0..<300 where stored < 2 {
                stored = try await storage.storedPieces()
                if stored < 2 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(stored >= 2, "the first pieces never reached the store")
            a.kill()

            // Through B the file is not there: it cannot be committed or read.
            let other = HTTP(base: b.baseURL)
            let none: String? = nil
            let commit = try await other.send(
                "PATCH",
                "/v1/storage/files/\(pending.id)",
                token: client.token,
                json: none
            )
            #expect(commit.0 == 400, "\(String(decoding: commit.1, as: UTF8.self))")
            #expect(
                try await other.send("GET", "/v1/storage/files/\(pending.id)", token: client.token, json: none).0 == 404
            )

            let swept = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["blobs", "sweep", "--older-than", "0"] + storage.arguments,
                environment: storage.environment
            )
            #expect(swept.status == 0, "\(swept.output)")
            #expect(swept.output.contains("removed 1 unfinished upload"), "\(swept.output)")
            #expect(try await storage.storedPieces() == 0)
            #expect(try await rowCount("blob_uploads", in: storage.databaseURL) == 0)
        }
    }

    @Test(
        "both instances are ready; PostgreSQL with a local blob folder, a per-instance token key or CA is refused"
    )
    func readinessAndUnsafeConfigurations() async throws {
        try await withTwoInstances(.database) { a, b, storage in
            for server in [a, b] {
                let none: String? = nil
                let (status, body) = try await HTTP(base: server.baseURL).send("GET", "/ready", json: none)
                #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
            }
            func serve(_ extra: [String], tokenKey: String) async throws -> ExternalProcess.Outcome {
                try await ExternalProcess.run(
                    ServerProcess.executable,
                    arguments: ["serve", "--port", "0"] + storage.arguments + extra,
                    environment: ["STRONGROOM_TOKEN_KEY": tokenKey]
                )
            }
            let folder = try await serve(["--blob-store", "folder"], tokenKey: ServerProcess.tokenKey)
            #expect(folder.status != 0)
            #expect(
                folder.output.contains("--blob-store database or s3, or declare --single-instance"),
                "\(folder.output)"
            )
            let localKey = try await serve([], tokenKey: "")
            #expect(localKey.status != 0)
            #expect(localKey.output.contains("same --token-key-file"), "\(localKey.output)")
            // A CA in the instance's own data directory: other instances would not have it.
            let initialised = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["ca", "init"] + storage.arguments
            )
            #expect(initialised.status == 0, "\(initialised.output)")
            let localCA = try await serve([], tokenKey: ServerProcess.tokenKey)
            #expect(localCA.status != 0)
            #expect(localCA.output.contains("same --ca-directory"), "\(localCA.output)")
        }
        // Declared the only instance, the same configuration serves.
        try await withTemporaryDirectory { directory in
            try await TestDatabase.withPostgres { url in
                let only = try await ServerProcess(
                    arguments: [
                        "--data-directory", directory.path, "--database-url", url, "--blob-store", "folder",
                        "--single-instance",
                    ],
                    environment: ["STRONGROOM_TOKEN_KEY": ""]
                )
                only.stop()
            }
        }
    }

    @Test("a long-poll on one instance is woken by a write through the other (LISTEN/NOTIFY, not a timed look)")
    func longPollAcrossInstances() async throws {
        let adminToken = String(repeating: "m", count: 40)
        try await withTwoInstances(.database, environment: ["STRONGROOM_ADMIN_TOKEN": adminToken]) { a, b, _ in
            let client = try await HTTP(base: a.baseURL).register(token: Self.registrationToken)
            let type = "scale-out-live"
            func metric(_ server: ServerProcess, _ name: String) async throws -> Double {
                let none: String? = nil
                let (_, body) = try await HTTP(base: server.baseURL).send(
                    "GET",
                    "/metrics",
                    token: adminToken,
                    json: none
                )
                let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first {
                    $0.hasPrefix(name + " ")
                }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            }
            /// Polls `condition` every 100 ms, up to five minutes (a loaded machine is slow, never wrong).
            func eventually(_ condition: () async throws -> Bool) async throws {
                for _ in 0..<3_000 {
                    if try await condition() { return }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            // B listens on the channel (its connection announced itself), then holds the long-poll.
            try await eventually { try await metric(b, "strongroom_sync_announcements_unknown_total") >= 1 }
            func changes(wait: Int) async throws -> Int64 {
                let (status, body) = try await HTTP(base: b.baseURL).send(
                    "POST",
                    "/v2/sync/changes",
                    token: client.token,
                    json: SyncChangesRequest(type: type, afterIndex: 0, wait: wait)
                )
                try #require(status == 200, "\(String(decoding: body, as: UTF8.self))")
                return try JSONDecoder().decode(SyncChangesResponse.self, from: body).lastIndex
            }
            let poll = Task { try await changes(wait: 25) }
            defer { poll.cancel() }
            try await eventually { try await metric(b, "strongroom_sync_changes_waiting") >= 1 }
            let received = try await metric(b, "strongroom_sync_announcements_received_total")
            let written = await HTTP(base: a.baseURL).writeEncrypted(
                ["f": "v"],
                type: type,
                key: AccessKey(),
                as: client
            )
            try #require(written != nil)
            // The poll answers the record at once; on a machine so loaded that its 25 s ran out first, a new one does.
            var index = try await poll.value
            if index == 0 { index = try await changes(wait: 0) }
            #expect(index > 0, "the long-poll on B saw the write through A")
            // The proof that it came through PostgreSQL: B counts A's announcement of the type.
            try await eventually { try await metric(b, "strongroom_sync_announcements_received_total") > received }
            #expect(try await metric(b, "strongroom_sync_announcements_received_total") > received)
        }
    }

    /// What a second server needs to reach the same deployment.
    struct Storage {
        var databaseURL: String
        /// `--data-directory` (of its own), `--database-url` and the blob-store options.
        var arguments: [String]
        var environment: [String: String]
        var bucket: TestBucket?

        /// Chunk rows in the database, or with S3 the bucket's objects plus the parts of its unfinished uploads.
        func storedPieces() async throws -> Int {
            guard let bucket else { return try await rowCount("blob_chunks", in: databaseURL) }
            let client = bucket.client
            var parts = try await client.keys(prefix: "").count
            for upload in try await client.pendingUploads(prefix: "") {
                parts += try await client.parts(key: upload.key, uploadID: upload.uploadID)
                parts += 1
            }
            return parts
        }
    }

    /// Instances A and B, each with its own data directory, on one fresh database; both get the same token key
    /// (``ServerProcess/tokenKey``), as an operator would configure them.
    private func withTwoInstances(
        _ blobs: BlobStorage,
        extra: [String] = [],
        environment: [String: String] = [:],
        _ body: (ServerProcess, ServerProcess, Storage) async throws -> Void
    ) async throws {
        let bucket = blobs == .s3 ? try await TestBucket.make() : nil
        try await withTemporaryDirectory { directory in
            try await TestDatabase.withPostgres { url in
                func start(_ name: String) async throws -> ServerProcess {
                    try await ServerProcess(
                        arguments: [
                            "--data-directory", directory.appending(path: name).path, "--database-url", url,
                            "--registration-token", Self.registrationToken,
                        ] + (bucket?.arguments ?? []) + extra,
                        environment: (bucket?.environment ?? [:]).merging(environment) { $1 }
                    )
                }
                let a = try await start("a")
                defer { if a.isRunning { a.stop() } }
                let b = try await start("b")
                defer { if b.isRunning { b.stop() } }
                let storage = Storage(
                    databaseURL: url,
                    arguments: ["--data-directory", directory.appending(path: "c").path, "--database-url", url]
                        + (bucket?.arguments ?? []),
                    environment: bucket?.environment ?? [:],
                    bucket: bucket
                )
                try await body(a, b, storage)
            }
        }
    }
}
