// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Testing

/// `rec_sig`: records this SDK writes carry the writer's signature over meta and plaintext, so ciphertext swapped
/// between records under the same key (which E3DB's field encryption cannot notice) is `tampered`, for the writer
/// and for a reader, through `read` and through queries.
@Suite struct RecordSignatureTests {
    @Test("ciphertext moved from one record to another under the same key is tampered, never the other's plaintext")
    func swappedCiphertext() async throws {
        try await withTemporaryDirectory { directory in
            let server = try await ServerProcess(
                arguments: [
                    "--data-directory", directory.path, "--registration-token", ClientTestServer.registrationToken,
                ]
            )
            defer { server.stop() }
            let url = try #require(URL(string: server.baseURL))
            let writer = try await ClientTestServer.client(url, "writer")
            let reader = try await ClientTestServer.client(url, "reader")
            let salary = try await writer.write(type: "payroll", data: ["amount": "1000"], plain: ["who": "alice"])
            let bonus = try await writer.write(type: "payroll", data: ["amount": "999999"], plain: ["who": "bob"])
            try await writer.share(type: "payroll", readerID: reader.configuration.clientID)
            #expect(try await reader.read(recordID: salary.meta.recordID).data == ["amount": "1000"])

            // The storage is compromised: bob's ciphertext is copied into alice's record (same writer, type, key).
            let script = """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                data = db.execute("SELECT data FROM records WHERE record_id = ?", (sys.argv[3],)).fetchone()[0]
                db.execute("UPDATE records SET data = ? WHERE record_id = ?", (data, sys.argv[2]))
                db.commit()
                """
            let outcome = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments: [
                    "python3", "-c", script, directory.appending(path: "strongroom.sqlite").path,
                    salary.meta.recordID.uuidString.lowercased(), bonus.meta.recordID.uuidString.lowercased(),
                ]
            )
            try #require(outcome.status == 0, "\(outcome.output)")

            for client in [writer, reader] {
                let direct = await #expect(throws: ClientError.self) {
                    try await client.read(recordID: salary.meta.recordID)
                }
                #expect(direct?.code == .tampered)
                let queried = await #expect(throws: ClientError.self) {
                    _ = try await client.query(QueryParams(types: ["payroll"], includesAllWriters: true))
                }
                #expect(queried?.code == .tampered)
            }
            // The untouched record still reads.
            #expect(try await reader.read(recordID: bonus.meta.recordID).data == ["amount": "999999"])
        }
    }
}
