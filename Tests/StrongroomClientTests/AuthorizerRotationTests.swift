// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomClient

/// Removing an authorizer rotates the type (docs/design/Revocation.md): the authorizer, holding the key it was given
/// to seal for others, opens nothing written afterwards; the reader it shared with keeps reading, old records and
/// new; `rotate: false` is the old, weaker removal.
@Suite struct AuthorizerRotationTests {
    @Test(
        "the removed authorizer's key opens nothing new; its reader reads all; rotate: false leaves the key",
        arguments: TestEngine.available
    )
    func removal(engine: TestEngine) async throws {
        try await ClientAuthorizerTests.withParties(engine) { writer, authorizer, reader in
            let (writerID, authorizerID, readerID) = (
                writer.configuration.clientID, authorizer.configuration.clientID, reader.configuration.clientID
            )
            let writerText = writerID.uuidString.lowercased()
            let before = try await writer.write(type: "medical", data: ["note": "before"])
            try await writer.add(authorizerID: authorizerID, type: "medical")
            try await authorizer.share(onBehalfOf: writerID, type: "medical", readerID: readerID)
            let held = try await authorizer.readerKey(writerID: writerText, userID: writerText, type: "medical")

            let report = try #require(try await writer.remove(authorizerID: authorizerID, type: "medical"))
            #expect(report.generation == 2 && report.readers == 2 && report.recordsLeft == 0, "\(report)")
            let after = try await writer.write(type: "medical", data: ["note": "after"])
            for record in [before, after] {
                let fields = try await writer.authenticated(
                    .GET,
                    E3DBPath.record.render(record.meta.recordID.uuidString.lowercased()),
                    success: [200],
                    as: RecordResponse.self
                ).data.values.map { try EncryptedField(wireFormat: $0) }
                #expect(!fields.contains { FieldCipher.isSealed($0, under: held) }, "\(record.meta.recordID)")
            }
            let fresh = Client(configuration: reader.configuration)
            #expect(try await fresh.read(recordID: before.meta.recordID).data == ["note": "before"])
            #expect(try await fresh.read(recordID: after.meta.recordID).data == ["note": "after"])
            await #expect(throws: ClientError.self) {
                try await authorizer.share(onBehalfOf: writerID, type: "medical", readerID: readerID)
            }

            // rotate: false: the grant and the key go, and nothing rotates.
            _ = try await writer.write(type: "lab", data: ["n": "1"])
            try await writer.add(authorizerID: authorizerID, type: "lab")
            #expect(try await writer.remove(authorizerID: authorizerID, type: "lab", rotate: false) == nil)
            #expect(try await writer.authorizers().isEmpty)
        }
    }
}
