// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StrongroomBackend
import StrongroomCrypto
import StrongroomTesting
import StrongroomTransport
import Testing
import X509

/// Runs the snippets of "Protecting your own backend" (StrongroomBackend's DocC) as written.
@Suite struct BackendArticleTests {
    @Test("the article's backend and app snippets run: the app's signed, pinned, mutual-TLS request is verified")
    func snippets() async throws {
        let fixture = try BackendFixture()
        let clientCA = fixture.pki.root.certificate
        let serverChain = [fixture.server.certificate]
        let serverKey = fixture.server.privateKey
        let port = 0
        let signingKey = fixture.signingKey
        let clientID = fixture.clientID
        @Sendable func revokedSerials() async throws -> Set<Certificate.SerialNumber> { [] }
        @Sendable func userKey(_ id: String) async throws -> SigningPublicKey? {
            id == clientID ? signingKey.publicKey : nil
        }

        // porting: backend
        let policy = ClientCertificatePolicy(
            anchors: [clientCA],
            revocation: .custom { certificate in try await revokedSerials().contains(certificate.serialNumber) }
        )
        let router = Router(context: BackendRequestContext.self)
        router.group("v1")
            .add(middleware: ClientCertificateMiddleware(policy: policy))
            .add(
                middleware: TSV1SignatureMiddleware(
                    signers: .custom { clientID, key in try await userKey(clientID) == key }
                )
            )
            .get("me") { _, context in context.caller.signer?.clientID ?? "" }
        let app = Application(
            router: router,
            server: try .mutualTLS(certificateChain: serverChain, privateKey: serverKey, clientCertificates: policy),
            configuration: .init(address: .hostname("0.0.0.0", port: port))
        )
        // end porting

        try await app.test(.live) { client in
            let authority = "localhost:\(try #require(client.port))"
            let host = "localhost"
            let backendCA = fixture.pki.root.certificate
            let backendPin = try PublicKeyPin(certificate: fixture.server.certificate)
            let backupPin = PublicKeyPin(subjectPublicKeyInfo: [0])
            let certificate = fixture.client.certificate
            let privateKey = fixture.client.privateKey

            // porting: app
            let channel = try SecureChannel(
                configuration: .init(
                    serverTrust: ServerTrust(
                        roots: .certificates([backendCA]),
                        hostPins: [host: [backendPin, backupPin]]
                    ),
                    clientIdentity: try ClientIdentity(certificate: certificate, privateKey: privateKey),
                    signer: .tsv1(clientID: clientID, signingKey: signingKey)
                )
            )
            let response = try await channel.send(
                HTTPRequest(method: .get, scheme: "https", authority: authority, path: "/v1/me")
            )
            // end porting

            #expect(response.status == .ok && String(buffer: response.body) == clientID)
        }
        let (quoted, tested) = try ArticleSnippets.compare(
            article: "Sources/StrongroomBackend/Documentation.docc/ProtectingYourOwnBackend.md",
            testFile: #filePath
        )
        #expect(quoted.count == 2 && quoted == tested)
    }
}
