// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomTesting
import StrongroomWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// SIGTERM stops new work and lets work in flight finish.
@Suite struct GracefulShutdownTests {
    static let token = "shutdown-token"

    @Test(
        "SIGTERM mid-upload: the listener closes, the upload in flight completes, and after a restart it commits and reads back",
        arguments: TestEngine.available
    )
    func drainsAnUploadInFlight(engine: TestEngine) async throws {
        try await ServerProcess.withServer(engine: engine, arguments: ["--registration-token", Self.token]) {
            server,
            storage in
            let http = HTTP(base: server.baseURL)
            let client = try await http.register(token: Self.token)
            let body = String(repeating: "0123456789abcdef", count: 1 << 17)  // 2 MiB
            let create = FileWriteRequest(
                meta: .init(
                    writerID: client.id,
                    userID: client.id,
                    type: "drained",
                    plain: [:],
                    fileMeta: FileMeta(
                        checksum: Data(Insecure.MD5.hash(data: Data(body.utf8))).base64EncodedString(),
                        compression: "raw",
                        size: Int64(body.utf8.count)
                    )
                )
            )
            let (status, created) = try await http.send("POST", "/v1/storage/files", token: client.token, json: create)
            try #require(status == 202)
            let pending = try JSONDecoder().decode(PendingFileResponse.self, from: created)
            let url = try #require(URLComponents(string: pending.fileURL))
            let connection = try await RawConnection(
                port: server.port,
                sending: "PUT \(url.path)?\(url.percentEncodedQuery ?? "") HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n"
            )
            let half = body.utf8.count / 2
            #expect(await connection.send(String(body.prefix(half))))

            server.beginShutdown()
            var listening = true
            for _ in 0..<300 where listening {
                listening = server.isListening
                if listening { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(!listening, "the listener stayed open after SIGTERM")
            #expect(server.isRunning, "the server exited with an upload in flight")

            #expect(await connection.send(String(body.dropFirst(half))))
            let response = try await connection.readResponse()
            #expect(response.hasPrefix("HTTP/1.1 200"), "\(response)")
            #expect(await server.waitForExit(within: .seconds(600)), "the server did not exit once drained")

            let restarted = try await ServerProcess(arguments: storage)
            defer { restarted.stop() }
            let again = HTTP(base: restarted.baseURL)
            let none: String? = nil
            let commit = try await again.send(
                "PATCH",
                "/v1/storage/files/\(pending.id)",
                token: client.token,
                json: none
            )
            #expect(commit.0 == 201, "\(String(decoding: commit.1, as: UTF8.self))")
            let (got, file) = try await again.send(
                "GET",
                "/v1/storage/files/\(pending.id)",
                token: client.token,
                json: none
            )
            try #require(got == 200)
            let record = try JSONDecoder().decode(RecordResponse.self, from: file)
            let fileURL = try #require(record.meta.fileMeta?.fileURL)
            let download = try #require(URL(string: fileURL))
            let (downloaded, _) = try await URLSession.shared.data(from: download)
            #expect(downloaded == Data(body.utf8))
        }
    }
}
