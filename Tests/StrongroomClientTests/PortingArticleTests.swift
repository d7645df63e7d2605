// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

/// Every Strongroom snippet of the porting article (`Documentation.docc/PortingFromE3dbSwift.md`) runs here, in the
/// article's order, against the real server; a second test checks the article quotes these blocks verbatim.
@Suite struct PortingArticleTests {
    @Test("every snippet of the porting article runs against a real server")
    func snippetsRun() async throws {
        try await ClientTestServer.run(engine: .sqlite) { apiURL in
            try await withTemporaryDirectory { folder in
                let e3dbToken = ClientTestServer.registrationToken
                let otherClient = try await ClientTestServer.client(apiURL, "other")
                let otherClientID = otherClient.configuration.clientID
                let thirdClientID = try await ClientTestServer.client(apiURL, "third").configuration.clientID

                // porting: register
                let config = try await Client.register(token: e3dbToken, clientName: "ExampleApp", apiURL: apiURL)
                let e3db = Client(configuration: config)
                // end porting

                // porting: write
                let record = try await e3db.write(
                    type: "UserInfo",
                    data: ["SSN": "123-45-6789"],
                    plain: ["Sent from": "my iPhone"]
                )
                print("Wrote record! \(record.meta.recordID)")
                // end porting

                // porting: read
                let read = try await e3db.read(recordID: record.meta.recordID)
                print("Record data: \(read.data)")
                // end porting
                #expect(read.data == ["SSN": "123-45-6789"])

                // porting: errors
                do throws(ClientError) {  // the methods use typed throws: `error` is a ClientError
                    _ = try await e3db.read(recordID: UUID())
                } catch {
                    switch error.code {
                    case .notFound, .forbidden: print("no such record for this client")
                    case .tampered: print("the server returned data that does not authenticate")
                    default: print("failed: \(error)")
                    }
                }
                // end porting

                // porting: query
                let q1 = QueryParams(count: 5, types: ["UserInfo"], includesAllWriters: true)
                let page = try await e3db.query(q1)
                print("Records: \(page.records)")
                let q2 = q1.next(after: page)
                let nextPage = try await e3db.query(q2)

                // Or let the SDK page for you:
                for try await record in e3db.records(matching: q1) {
                    print(record.meta.recordID, record.data)
                }
                // end porting
                #expect(page.records.count == 1 && nextPage.records.isEmpty)

                // porting: share
                try await e3db.share(type: "UserInfo", readerID: otherClientID)
                try await e3db.revoke(type: "UserInfo", readerID: otherClientID)
                // end porting

                // porting: share-twice
                try await e3db.share(type: "UserInfo", readerID: otherClientID)
                try await e3db.share(type: "UserInfo", readerID: otherClientID)  // idempotent: no conflict error
                try await e3db.revoke(type: "UserInfo", readerID: otherClientID)
                // end porting

                // porting: encrypt
                let recordType = "UserInfo"
                let eak = try await e3db.createWriterKey(type: recordType)
                let encrypted = try e3db.encrypt(type: recordType, data: ["SSN": "123-45-6789"], eakInfo: eak)
                let stored = try JSONEncoder().encode(eak)  // EAKInfo is Codable and safe to store: it is encrypted
                print("Encrypted document: \(encrypted)")
                // end porting
                #expect(!stored.isEmpty)

                // porting: decrypt
                let writerKey = try JSONDecoder().decode(EAKInfo.self, from: stored)
                let decrypted = try e3db.decrypt(encryptedDocument: encrypted, eakInfo: writerKey)
                print("Decrypted document: \(decrypted)")
                // end porting
                #expect(decrypted == ["SSN": "123-45-6789"])

                try await e3db.share(type: recordType, readerID: otherClientID)
                let reader = otherClient
                // porting: reader-key
                let writerID = e3db.configuration.clientID
                let readerKey = try await reader.getReaderKey(writerID: writerID, userID: writerID, type: recordType)
                let shared = try reader.decrypt(encryptedDocument: encrypted, eakInfo: readerKey)
                // end porting
                #expect(shared == decrypted)

                // porting: sign
                let document: SignableValue = ["SSN": "123-45-6789", "issued": 2026]
                let signedDoc = e3db.sign(document: document)
                print("Signed Document: \(signedDoc.signature.base64EncodedString())")
                // end porting

                // porting: verify
                do {
                    try e3db.verify(signed: signedDoc, publicSigningKey: config.keys.signingKey.publicKey)
                    // Document verified!
                } catch {
                    print("Document failed verification")
                }
                // end porting

                // porting: verify-other
                let signer = try await reader.clientInfo(of: e3db.configuration.clientID)
                guard let signerKey = signer.signingKey else { throw ClientError(.notFound, "no signing key") }
                try reader.verify(signed: signedDoc, publicSigningKey: signerKey)
                // end porting

                // porting: countersign
                let signedEncrypted = e3db.sign(document: encrypted)  // an EncryptedDocument is Signable
                let countersigned = reader.sign(document: signedEncrypted)  // so is a SignedDocument
                let readerSigningKey = reader.configuration.keys.signingKey.publicKey
                try reader.verify(signed: countersigned, publicSigningKey: readerSigningKey)
                // end porting

                let profiles = folder
                // porting: profiles
                try config.save(profile: "example", in: profiles)  // 0600, the official SDKs' e3db.json format
                let loaded = try Client.Configuration(loadProfile: "example", from: profiles)
                // end porting
                #expect(loaded.clientID == config.clientID)

                let photoURL = folder.appending(path: "photo.jpg")
                try Data(repeating: 0xFF, count: 100_000).write(to: photoURL)
                // porting: files
                let file = try await e3db.writeFile(type: "photo", fileURL: photoURL) { progress in
                    print(progress)
                }
                try await e3db.readFile(recordID: file.meta.recordID, destination: folder.appending(path: "copy.jpg"))
                // end porting

                // porting: file-meta
                let fileRecord = try await e3db.read(recordID: file.meta.recordID)
                print(fileRecord.data.isEmpty, fileRecord.meta.fileMeta?.fileName ?? "")  // true photo.jpg
                // end porting
                #expect(fileRecord.data.isEmpty && fileRecord.meta.fileMeta?.fileName == "photo.jpg")

                // porting: overwrite
                let copyURL = folder.appending(path: "copy.jpg")  // exists: refused unless overwrite is true
                try await e3db.readFile(recordID: file.meta.recordID, destination: copyURL, overwrite: true)
                // end porting

                // porting: authorizers
                try await e3db.add(authorizerID: otherClientID, type: "UserInfo")
                // The authorizer shares with a third client (never with itself: the server refuses that).
                try await otherClient.share(
                    onBehalfOf: e3db.configuration.clientID,
                    type: "UserInfo",
                    readerID: thirdClientID
                )
                try await e3db.remove(authorizerID: otherClientID)
                // end porting

                // porting: pinning
                let pinned = Client.TransportOptions(
                    serverTrust: ServerTrust(
                        roots: .system,
                        pins: [
                            PublicKeyPin(base64: "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI=")!,  // current key
                            PublicKeyPin(base64: "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")!,  // offline backup
                        ]
                    ),
                    requestTimeout: .seconds(30)
                )
                let pinnedClient = try Client(configuration: config, options: pinned)
                // end porting
                _ = pinnedClient
            }
        }
    }

    @Test("the article quotes each tested snippet verbatim, and every article snippet is tested")
    func articleMatchesTests() throws {
        let (quoted, tested) = try ArticleSnippets.compare(
            article: "Sources/StrongroomClient/Documentation.docc/PortingFromE3dbSwift.md",
            testFile: #filePath
        )
        #expect(tested.count >= 19)
        #expect(Set(quoted.keys) == Set(tested.keys))
        for (name, code) in tested { #expect(quoted[name] == code, "snippet \(name)") }
    }
}
