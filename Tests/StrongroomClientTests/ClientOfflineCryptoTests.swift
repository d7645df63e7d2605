// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

@Suite struct ClientOfflineCryptoTests {
    @Test("documents encrypted offline decrypt for the writer and a reader; any change is tampered")
    func offlineDocuments() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let writer = try await ClientTestServer.client(url, "writer")
            let reader = try await ClientTestServer.client(url, "reader")
            let writerKey = try await writer.createWriterKey(type: "offline")
            #expect(writerKey.signerID == writer.configuration.clientID)
            let document = try writer.encrypt(
                type: "offline",
                data: ["secret": "kept offline", "n": "1"],
                eakInfo: writerKey,
                plain: ["tag": "x"]
            )
            #expect(
                try writer.decrypt(encryptedDocument: document, eakInfo: writerKey) == [
                    "secret": "kept offline", "n": "1",
                ]
            )

            // A reader with the shared key decrypts and verifies it too, after a JSON round trip of both parts.
            try await writer.share(type: "offline", readerID: reader.configuration.clientID)
            let readerKey = try await reader.getReaderKey(
                writerID: writer.configuration.clientID,
                userID: writer.configuration.clientID,
                type: "offline"
            )
            let storedKey = try JSONDecoder().decode(EAKInfo.self, from: JSONEncoder().encode(readerKey))
            let storedDocument = try JSONDecoder().decode(EncryptedDocument.self, from: JSONEncoder().encode(document))
            #expect(
                try reader.decrypt(encryptedDocument: storedDocument, eakInfo: storedKey)["secret"] == "kept offline"
            )
            let json = String(decoding: try JSONEncoder().encode(readerKey), as: UTF8.self)
            #expect(json.contains("\"authorizer_public_key\":{\"curve25519\":"))
            #expect(json.contains("\"signer_signing_key\":{\"ed25519\":"))

            // Altered metadata breaks the signature; altered ciphertext does not decrypt; another key does not open.
            var changedMeta = document
            changedMeta.meta.plain = ["tag": "y"]
            var changedData = document
            changedData.data["n"] = document.data["secret"]
            for altered in [changedMeta, changedData] {
                let error = #expect(throws: ClientError.self) {
                    try reader.decrypt(encryptedDocument: altered, eakInfo: readerKey)
                }
                #expect(error?.code == .tampered)
            }
            let wrongKey = #expect(throws: ClientError.self) {
                try reader.decrypt(encryptedDocument: document, eakInfo: writerKey)
            }
            #expect(wrongKey?.code == .tampered)

            // An encrypted document is signable (as in e3db-swift), and a signed document can be countersigned.
            let signed = writer.sign(document: document)
            let writerSigning = writer.configuration.keys.signingKey.publicKey
            try reader.verify(signed: signed, publicSigningKey: writerSigning)
            let countersigned = reader.sign(document: signed)
            try writer.verify(signed: countersigned, publicSigningKey: reader.configuration.keys.signingKey.publicKey)
            var forged = signed
            forged.document.recordSignature = changedMeta.recordSignature + "x"
            #expect(throws: ClientError.self) {
                try reader.verify(signed: forged, publicSigningKey: writerSigning)
            }
            // The bytes signed are e3db-swift's serialization: sorted keys, no whitespace.
            let text = document.canonicalSerialization
            #expect(text.hasPrefix("{\"data\":{\"n\":\""), "\(text)")
            #expect(text.contains("\"meta\":{\"plain\":{\"tag\":\"x\"},\"type\":\"offline\",\"user_id\":\""))
            #expect(text.hasSuffix("\"rec_sig\":\"\(document.recordSignature)\"}"))
            let outer = signed.canonicalSerialization
            #expect(outer == "{\"doc\":\(text),\"sig\":\"\(Base64URL.encode(signed.signature))\"}")
        }
    }

    @Test("sign and verify any Signable document")
    func signing() async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            let client = try await ClientTestServer.client(url)
            let signed = client.sign(document: ["order": 42, "to": "alice"] as SignableValue)
            try client.verify(signed: signed, publicSigningKey: client.configuration.keys.signingKey.publicKey)
            let error = #expect(throws: ClientError.self) {
                try client.verify(signed: signed, publicSigningKey: SigningPrivateKey().publicKey)
            }
            #expect(error?.code == .tampered)
        }
    }
}
