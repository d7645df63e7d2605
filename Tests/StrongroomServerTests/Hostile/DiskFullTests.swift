// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

/// The real server on SQLite with its data directory on a small file system that fills up (issue 45, item 5):
/// writes on the full disk answer 507 `storage_full` and change nothing, the server keeps serving, and once space
/// returns it writes again without a restart and holds every acknowledged record (before and after a restart).
@Suite(.enabled(if: SmallFileSystem.isAvailable, "mounting a small file system needs root (CI has it)"))
struct DiskFullTests {
    @Test("a full disk: 507 storage_full, /health still answers; space freed: writes resume and nothing is lost")
    func serverDiskFull() async throws {
        try await SmallFileSystem.with(bytes: 6 << 20) { mount in
            let token = "disk-full-token"
            let arguments = ["--data-directory", mount.appending(path: "data").path, "--registration-token", token]
            let server = try await ServerProcess(arguments: arguments)
            defer { if server.isRunning { server.stop() } }
            let http = HTTP(base: server.baseURL)
            let client = try await http.register(token: token)
            let key = AccessKey()
            var acknowledged: [String: [String: String]] = [:]
            func write(_ text: String) async throws -> Int {
                let data = FieldCipher.encrypt(fields: ["f": text], with: key)
                let body = RecordWriteRequest(
                    meta: .init(writerID: client.id, userID: client.id, type: "full", plain: nil),
                    data: data
                )
                let (status, response) = try await http.send(
                    "POST",
                    "/v1/storage/records",
                    token: client.token,
                    json: body
                )
                if status == 201 {
                    let record = try JSONDecoder().decode(RecordResponse.self, from: response)
                    acknowledged[record.meta.recordID] = data
                } else {
                    #expect(status == 507, "\(String(decoding: response, as: UTF8.self))")
                    #expect(String(decoding: response, as: UTF8.self).contains("storage_full"))
                }
                return status
            }
            for number in 0..<10 { #expect(try await write("before-\(number)") == 201) }
            SmallFileSystem.fill(mount)
            var refused = 0
            for number in 0..<40 where try await write(String(repeating: "x", count: 3_000) + "\(number)") != 201 {
                refused += 1
            }
            #expect(refused > 0, "the disk was full")
            #expect(server.isRunning)
            #expect(try await http.send("GET", "/health", json: String?.none).0 == 200)

            try FileManager.default.removeItem(at: mount.appending(path: "filler"))
            for number in 0..<5 { #expect(try await write("after-\(number)") == 201, "no restart needed") }
            func readAll(_ http: HTTP, token: String) async throws {
                for (id, data) in acknowledged {
                    let (status, body) = try await http.send(
                        "GET",
                        "/v1/storage/records/\(id)",
                        token: token,
                        json: String?.none
                    )
                    #expect(status == 200, "\(id)")
                    let record = try JSONDecoder().decode(RecordResponse.self, from: body)
                    #expect(record.data == data, "\(id)")
                }
            }
            try await readAll(http, token: client.token)
            server.stop()
            let restarted = try await ServerProcess(arguments: arguments)
            defer { restarted.stop() }
            let again = HTTP(base: restarted.baseURL)
            try await readAll(again, token: try await again.token(client))
        }
    }

    @Test("a file upload on a full disk: 507 storage_full, nothing visible or left behind; space freed: it succeeds")
    func uploadOnAFullDisk() async throws {
        try await SmallFileSystem.with(bytes: 6 << 20) { mount in
            let token = "disk-full-token"
            let data = mount.appending(path: "data")
            let server = try await ServerProcess(arguments: [
                "--data-directory", data.path, "--registration-token", token, "--blob-store", "folder",
            ])
            defer { server.stop() }
            let http = HTTP(base: server.baseURL)
            let client = try await http.register(token: token)
            let body = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let create = FileWriteRequest(
                meta: .init(
                    writerID: client.id,
                    userID: client.id,
                    type: "full-file",
                    plain: [:],
                    fileMeta: FileMeta(
                        checksum: Data(Insecure.MD5.hash(data: body)).base64EncodedString(),
                        compression: "raw",
                        size: Int64(body.count)
                    )
                )
            )
            let (created, pendingBody) = try await http.send(
                "POST",
                "/v1/storage/files",
                token: client.token,
                json: create
            )
            try #require(created == 202)
            let pending = try JSONDecoder().decode(PendingFileResponse.self, from: pendingBody)
            let upload = try #require(URLComponents(string: pending.fileURL))
            let uploadPath = upload.path + "?" + (upload.percentEncodedQuery ?? "")

            SmallFileSystem.fill(mount)
            let (refused, answer) = try await http.send("PUT", uploadPath, body: body)
            #expect(refused == 507 && String(decoding: answer, as: UTF8.self).contains("storage_full"))
            let commit = try await http.send(
                "PATCH",
                "/v1/storage/files/\(pending.id)",
                token: client.token,
                json: String?.none
            )
            #expect(commit.0 == 400, "nothing was uploaded")
            let left = try FileManager.default.contentsOfDirectory(atPath: data.appending(path: "blobs").path)
            #expect(left.isEmpty, "a refused upload leaves nothing: \(left)")

            try FileManager.default.removeItem(at: mount.appending(path: "filler"))
            #expect(try await http.send("PUT", uploadPath, body: body).0 == 200, "no restart needed")
            let committed = try await http.send(
                "PATCH",
                "/v1/storage/files/\(pending.id)",
                token: client.token,
                json: String?.none
            )
            #expect(committed.0 == 201)
        }
    }
}
