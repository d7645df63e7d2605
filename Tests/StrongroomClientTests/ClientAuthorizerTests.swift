// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Testing

@Suite struct ClientAuthorizerTests {
    @Test(
        "an authorizer shares and revokes on a writer's behalf; listings show every grant",
        arguments: TestEngine.available
    )
    func onBehalfOf(engine: TestEngine) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            let writer = try await ClientTestServer.client(url, "writer")
            let authorizer = try await ClientTestServer.client(url, "authorizer")
            let reader = try await ClientTestServer.client(url, "reader")
            let (writerID, authorizerID, readerID) = (
                writer.configuration.clientID, authorizer.configuration.clientID, reader.configuration.clientID
            )
            let record = try await writer.write(type: "medical", data: ["note": "confidential"])
            try await writer.add(authorizerID: authorizerID, type: "medical")

            // The authorizer holds the key but no read grant.
            let cannotRead = await #expect(throws: ClientError.self) {
                try await authorizer.read(recordID: record.meta.recordID)
            }
            #expect(cannotRead?.code == .forbidden)

            try await authorizer.share(onBehalfOf: writerID, type: "medical", readerID: readerID)
            #expect(try await reader.read(recordID: record.meta.recordID).data == ["note": "confidential"])

            #expect(try await writer.authorizers().map(\.authorizerID) == [authorizerID])
            #expect(try await authorizer.authorizedBy().map(\.writerID) == [writerID])
            #expect(try await writer.outgoingSharing().map(\.readerID) == [readerID])
            #expect(try await reader.incomingSharing().map(\.writerName) == ["writer"])

            try await authorizer.revoke(onBehalfOf: writerID, type: "medical", readerID: readerID)
            let revoked = await #expect(throws: ClientError.self) {
                try await reader.read(recordID: record.meta.recordID)
            }
            #expect(revoked?.code == .forbidden)

            // Once the grant is withdrawn, sharing on the writer's behalf fails.
            try await writer.remove(authorizerID: authorizerID, type: "medical")
            #expect(try await writer.authorizers().isEmpty)
            await #expect(throws: ClientError.self) {
                try await authorizer.share(onBehalfOf: writerID, type: "medical", readerID: readerID)
            }
        }
    }
}
