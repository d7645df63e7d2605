// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomTesting
import Testing

@Suite struct ClientAuthorizerTests {
    /// A server on `engine` and three registered clients: a writer, its authorizer, a reader.
    static func withParties(
        _ engine: TestEngine,
        _ body: (Client, Client, Client) async throws -> Void
    ) async throws {
        try await ClientTestServer.run(engine: engine) { url in
            try await body(
                try await ClientTestServer.client(url, "writer"),
                try await ClientTestServer.client(url, "authorizer"),
                try await ClientTestServer.client(url, "reader")
            )
        }
    }

    @Test(
        "an authorizer shares and revokes on a writer's behalf; listings show every grant",
        arguments: TestEngine.available
    )
    func onBehalfOf(engine: TestEngine) async throws {
        try await Self.withParties(engine) { writer, authorizer, reader in
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

    @Test(
        "remove(authorizerID:) withdraws every type at once; getReaderKey without a share is a typed error",
        arguments: TestEngine.available
    )
    func removeForAllTypesAndUnsharedKey(engine: TestEngine) async throws {
        try await Self.withParties(engine) { writer, authorizer, reader in
            let (writerID, authorizerID, readerID) = (
                writer.configuration.clientID, authorizer.configuration.clientID, reader.configuration.clientID
            )
            for type in ["alpha", "beta"] {
                _ = try await writer.write(type: type, data: ["n": type])
                try await writer.add(authorizerID: authorizerID, type: type)
            }
            #expect(try await writer.authorizers().count == 2)
            try await writer.remove(authorizerID: authorizerID)
            #expect(try await writer.authorizers().isEmpty)
            #expect(try await authorizer.authorizedBy().isEmpty)
            for type in ["alpha", "beta"] {
                // The writer's key sealed to the authorizer is gone too, not only the policy.
                let keyGone = await #expect(throws: ClientError.self) {
                    try await authorizer.getReaderKey(writerID: writerID, userID: writerID, type: type)
                }
                #expect(keyGone?.code == .notFound, "\(String(describing: keyGone))")
                let refused = await #expect(throws: ClientError.self) {
                    try await authorizer.share(onBehalfOf: writerID, type: type, readerID: readerID)
                }
                #expect(refused?.code == .notFound, "\(String(describing: refused))")
            }

            // Nothing was shared with the reader: its key for the writer's type does not exist.
            let unshared = await #expect(throws: ClientError.self) {
                try await reader.getReaderKey(writerID: writerID, userID: writerID, type: "alpha")
            }
            #expect(unshared?.code == .notFound, "\(String(describing: unshared))")
            // The request is named as a person reads it: `GET /v1/storage/…`, not a Swift value.
            #expect(unshared?.message.hasPrefix("GET /v1/") == true, "\(String(describing: unshared?.message))")
        }
    }
}
