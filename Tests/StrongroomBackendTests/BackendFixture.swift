// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import StrongroomBackend
import StrongroomCrypto
import StrongroomPKI
import StrongroomShield
import StrongroomTesting
import StrongroomTransport
import StrongroomWire
import Synchronization
import Testing
import X509

/// A backend an app developer would write: mutual TLS with a private CA, `/ping` behind the client certificate
/// alone, `/v1/*` behind the certificate and a TSV1 signature; run live on a free port for each test.
final class BackendFixture: Sendable {
    let pki: TestPKI
    let server: TestPKI.Issued
    let client: TestPKI.Issued
    let signingKey = SigningPrivateKey()
    let clientID = UUID().uuidString.lowercased()
    /// Serial numbers the backend treats as revoked (the test revokes while connections are open).
    let revoked = Mutex<Set<Certificate.SerialNumber>>([])

    /// Whether the backend offers HTTP/2 as well as HTTP/1.1.
    let http2: Bool

    init(http2: Bool = false) throws {
        self.http2 = http2
        pki = try TestPKI(referenceTime: Date())
        server = try pki.localhost()
        // The client certificate names its client, as the Strongroom CA's do: the TSV1 middleware binds the two.
        client = try pki.leaf(
            commonName: "alice's phone",
            names: [.uniformResourceIdentifier(ClientCertificateName.uri(for: clientID))],
            usage: [.clientAuth]
        )
    }

    var policy: ClientCertificatePolicy {
        ClientCertificatePolicy(
            anchors: [pki.root.certificate],
            revocation: .custom { [self] in revoked.withLock { $0 }.contains($0.serialNumber) }
        )
    }

    /// The channel's configuration for this backend: only its CA, its key pinned, the client certificate and the
    /// TSV1 signer.
    func channelConfiguration(identity: Bool = true, signed: Bool = true) throws -> SecureChannel.Configuration {
        SecureChannel.Configuration(
            serverTrust: ServerTrust(
                roots: .certificates([pki.root.certificate]),
                hostPins: ["127.0.0.1": [try PublicKeyPin(certificate: server.certificate)]]
            ),
            clientIdentity: identity
                ? try ClientIdentity(certificate: client.certificate, privateKey: client.privateKey) : nil,
            requestTimeout: .seconds(600),
            signer: signed ? .tsv1(clientID: clientID, signingKey: signingKey) : nil
        )
    }

    /// A plain-HTTP app serving `router` on a free port of 127.0.0.1, quiet unless something is critical.
    static func plain(_ router: Router<BasicRequestContext>) -> some ApplicationProtocol {
        var logger = Logger(label: "backend-test")
        logger.logLevel = .critical
        return Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: logger
        )
    }

    /// Runs the backend and `body` with its base URL.
    func run(_ body: @Sendable (_ port: Int) async throws -> Void) async throws {
        let router = Router(context: BackendRequestContext.self)
        let certified = router.group().add(middleware: ClientCertificateMiddleware(policy: policy))
        // The client's port: one value across concurrent requests means one (HTTP/2) connection carried them.
        certified.get("/peer") { _, context -> String in "\(context.connection.remoteAddress?.port ?? 0)" }
        certified.get("/ping") { _, context -> String in
            "pong " + (context.caller.certificate?.subject.description ?? "?")
        }
        certified.group("v1")
            .add(
                middleware: TSV1SignatureMiddleware(
                    signers: .keys([clientID: signingKey.publicKey])
                )
            )
            .get("me") { _, context -> String in context.caller.signer?.clientID ?? "?" }
            .post("echo") { request, _ -> Response in
                // The body streams back as it arrives.
                Response(status: .ok, body: ResponseBody(asyncSequence: request.body))
            }
            .add(middleware: IntegrityVerdictMiddleware(policy: .init(refusedFindings: [.virtualization])))
            .post("pay") { _, context -> String in context.caller.integrity?.verdict.rawValue ?? "?" }
        var logger = Logger(label: "backend-test")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            server: try .mutualTLS(
                certificateChain: [server.certificate],
                privateKey: server.privateKey,
                clientCertificates: policy,
                http2: http2
            ),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: logger
        )
        try await app.test(.live) { client in try await body(try #require(client.port)) }
    }
}

/// Requests to the fixture's backend.
extension HTTPRequest {
    static func backend(_ method: HTTPRequest.Method, _ port: Int, _ path: String) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "https", authority: "127.0.0.1:\(port)", path: path)
    }
}
