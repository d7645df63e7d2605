// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomServerTesting
import StrongroomTesting
import Testing

/// The data directory and everything in it are owner-only; a token key others could read stops the server.
@Suite struct DataDirectoryPermissionTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard let mode = attributes[.posixPermissions] as? Int else { throw TestFailure("no mode for \(path)") }
        return mode & 0o777
    }

    @Test("a 0755 data directory is tightened to 0700 and every file the server writes is 0600")
    func ownerOnly() async throws {
        try await withTemporaryDirectory { parent in
            let data = parent.appending(path: "data").path
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            chmod(data, 0o755)
            let token = String(repeating: "p", count: 40)
            let server = try await ServerProcess(
                arguments: ["--data-directory", data, "--registration-token", token],
                environment: ["STRONGROOM_TOKEN_KEY": ""]
            )
            let http = HTTP(base: server.baseURL)
            _ = try await http.register(token: token)  // writes reach the WAL
            #expect(try Self.mode(data) == 0o700)
            let files = try FileManager.default.contentsOfDirectory(atPath: data)
            #expect(files.contains("strongroom.sqlite-wal"))
            for file in files where file != "blobs" {
                #expect(try Self.mode(data + "/" + file) == 0o600, "\(file)")
            }
            #expect(try Self.mode(data + "/blobs") == 0o700)
            server.stop()

            chmod(data + "/token.key", 0o644)
            await #expect(throws: ServerProcess.StartError.self) {
                _ = try await ServerProcess(
                    arguments: ["--data-directory", data],
                    environment: ["STRONGROOM_TOKEN_KEY": ""]
                )
            }
        }
    }
}
