// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// The SDK's side of the sync routes (replication slice 2): revision records written encrypted and signed, once per
/// tag, found missing until written, and read back as ordinary records of their type.
@Suite struct ClientSyncTests {
    @Test(
        "writeRevisions stores once per tag; missingRevisionTags sees them; v1 reads verify them",
        arguments: TestEngine.available
    )
    func revisions(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let client = try await ClientTestServer.client(url)
            let type = "sr1.clientsynctest000000"
            let tags = (0..<3).map { "tag\($0)" + String(repeating: "Q", count: 40) }
            #expect(try await client.missingRevisionTags(type: type, tags: tags) == tags)
            let writes = tags.map {
                Client.RevisionWrite(
                    fields: ["doc": "first", "rev": "1-a", "body": "{}"],
                    plain: ["sr.v": "1", "sr.d": $0 + "d", "sr.r": $0]
                )
            }
            let first = try await client.writeRevisions(type: type, Array(writes.prefix(2)))
            #expect(first.map(\.created) == [true, true])
            let second = try await client.writeRevisions(type: type, writes)
            #expect(second.map(\.created) == [false, false, true])
            #expect(second.prefix(2).map(\.recordID) == first.map(\.recordID))
            #expect(try await client.missingRevisionTags(type: type, tags: tags + ["other"]) == ["other"])
            // An ordinary record of its type: decrypted, its signature verified, by the v1 read.
            let record = try await client.read(recordID: try #require(UUID(uuidString: first[0].recordID)))
            #expect(record.data == ["doc": "first", "rev": "1-a", "body": "{}"])
            #expect(record.meta.plain["sr.r"] == tags[0])
            let refused = await #expect(throws: ClientError.self) {
                try await client.writeRevisions(type: type, [Client.RevisionWrite(fields: ["a": "b"], plain: [:])])
            }
            #expect(refused?.code == .badRequest)
        }
    }
}
