// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import StrongroomCore
import StrongroomCrypto
import StrongroomWire
import Testing

/// The server's files never hold user plaintext, private keys or API secrets.
@Suite struct NoPlaintextAtRestTests {
    @Test("the data directory holds no canary, private key or API secret")
    func scan() async throws {
        try await TestServer.run { api in
            let writer = try await api.register("writer")
            let reader = try await api.register("reader")
            let key = AccessKey()
            let canary = "CANARY-\(UUID().uuidString)-plaintext"
            for index in 0..<20 {
                _ = try await api.writeRecord(
                    as: writer,
                    type: "t",
                    fields: ["secret": "\(canary) \(index)"],
                    accessKey: key
                )
            }
            try await api.share("t", from: writer, to: reader, accessKey: key)
            let secrets = [
                canary, writer.apiSecret, reader.apiSecret, writer.keys.encryptionKey.base64URLEncoded,
                writer.keys.signingKey.base64URLEncoded, Base64URL.encode(key.rawRepresentation),
            ]
            let files = try FileManager.default.subpathsOfDirectory(atPath: api.dataDirectory.path)
            #expect(files.contains("strongroom.sqlite"))
            for file in files {
                let bytes = try Data(contentsOf: api.dataDirectory.appending(path: file))
                for secret in secrets {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) contains a secret")
                }
            }
        }
    }
}
