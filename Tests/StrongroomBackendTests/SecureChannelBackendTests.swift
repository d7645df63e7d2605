// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import StrongroomBackend
import StrongroomCrypto
import StrongroomPKI
import StrongroomTesting
import StrongroomTransport
import SwiftASN1
import Synchronization
import Testing
import X509

/// ``SecureChannel`` against an app's own Hummingbird backend protected by the Strongroom middleware: pinned,
/// mutual-TLS, TSV1-signed requests both ways, and each protection refusing what it should.
@Suite struct SecureChannelBackendTests {
    @Test("a pinned, mutual-TLS, signed channel reaches the backend, which sees the certificate and the signer")
    func signedMutualTLS() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            let me = try await channel.send(.backend(.get, port, "/v1/me?view=full&a=1"))
            #expect(me.status == .ok)
            #expect(String(buffer: me.body) == fixture.clientID)
            let ping = try await channel.send(.backend(.get, port, "/ping"))
            #expect(String(buffer: ping.body) == "pong CN=alice's phone")
            // Each request is signed afresh: the same request again is not a replay.
            #expect(try await channel.send(.backend(.get, port, "/v1/me?view=full&a=1")).status == .ok)
        }
    }

    @Test("bodies stream both ways at once: 64 MiB echoed while it is sent, more than every buffer between holds")
    func streaming() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            let chunk = ByteBuffer(bytes: (0..<(64 << 10)).map { UInt8($0 % 253) })
            let chunks = AsyncStream<ByteBuffer> { continuation in
                for _ in 0..<1024 { continuation.yield(chunk) }
                continuation.finish()
            }
            let (status, total, digest) = try await channel.stream(
                .backend(.post, port, "/v1/echo"),
                body: .stream(chunks)
            ) { response, body in
                var total = 0
                var hash = SHA256()
                for try await piece in body {
                    piece.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                    total += piece.readableBytes
                }
                return (response.status, total, hash.finalize())
            }
            var expected = SHA256()
            for _ in 0..<1024 { chunk.withUnsafeReadableBytes { expected.update(bufferPointer: $0) } }
            #expect(status == .ok && total == 1024 << 16 && digest == expected.finalize())
        }
    }

    @Test("a request body that fails while it is sent ends the exchange with its error; nothing waits for it")
    func failingBody() async throws {
        struct Broken: Error {}
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            let chunks = AsyncThrowingStream<ByteBuffer, any Error> { continuation in
                continuation.yield(ByteBuffer(string: "the first part"))
                continuation.finish(throwing: Broken())
            }
            await #expect(throws: (any Error).self) {
                try await channel.send(.backend(.post, port, "/v1/echo"), body: .stream(chunks))
            }
            // The channel still works.
            #expect(try await channel.send(.backend(.get, port, "/v1/me")).status == .ok)
        }
    }

    @Test("unsigned, replayed and foreign-key requests get 401; the signed one before them was accepted")
    func signatureRefusals() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let unsigned = try SecureChannel(configuration: try fixture.channelConfiguration(signed: false))
            #expect(try await unsigned.send(.backend(.get, port, "/v1/me")).status == .unauthorized)
            // One signature, sent twice: the second is a replay.
            var request = HTTPRequest.backend(.get, port, "/v1/me")
            request.headerFields[.authorization] = TSV1.authorization(
                for: .init(method: "GET", path: "/v1/me"),
                clientID: fixture.clientID,
                signingKey: fixture.signingKey
            )
            #expect(try await unsigned.send(request).status == .ok)
            #expect(try await unsigned.send(request).status == .unauthorized)
            // A valid signature by a key the backend does not know for that client.
            request.headerFields[.authorization] = TSV1.authorization(
                for: .init(method: "GET", path: "/v1/me"),
                clientID: fixture.clientID,
                signingKey: SigningPrivateKey()
            )
            #expect(try await unsigned.send(request).status == .unauthorized)
            // Signed for another path.
            request.headerFields[.authorization] = TSV1.authorization(
                for: .init(method: "GET", path: "/v1/other"),
                clientID: fixture.clientID,
                signingKey: fixture.signingKey
            )
            #expect(try await unsigned.send(request).status == .unauthorized)
        }
    }

    @Test(
        "a stolen signing key with another client's enrolled certificate is refused: the certificate names the signer"
    )
    func signerBoundToCertificate() async throws {
        let fixture = try BackendFixture()
        // Mallory's own certificate from the same CA (enrolled, not revoked), and alice's signing key.
        let mallory = try fixture.pki.leaf(
            commonName: "mallory's phone",
            names: [.uniformResourceIdentifier(ClientCertificateName.uri(for: UUID().uuidString))],
            usage: [.clientAuth]
        )
        let unnamed = try fixture.pki.leaf(commonName: "a phone", usage: [.clientAuth])
        try await fixture.run { port in
            for certificate in [mallory, unnamed] {
                var configuration = try fixture.channelConfiguration()
                configuration.clientIdentity = try ClientIdentity(
                    certificate: certificate.certificate,
                    privateKey: certificate.privateKey
                )
                let channel = try SecureChannel(configuration: configuration)
                #expect(try await channel.send(.backend(.get, port, "/ping")).status == .ok, "the certificate is valid")
                #expect(try await channel.send(.backend(.get, port, "/v1/me")).status == .unauthorized)
            }
            let alice = try SecureChannel(configuration: try fixture.channelConfiguration())
            #expect(try await alice.send(.backend(.get, port, "/v1/me")).status == .ok)
        }
    }

    @Test("no client certificate, or a revoked one, is refused: in the handshake, and on a kept-alive connection")
    func certificateRefusals() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            let anonymous = try SecureChannel(configuration: try fixture.channelConfiguration(identity: false))
            let refused = await #expect(throws: TransportError.self) {
                try await anonymous.send(.backend(.get, port, "/ping"))
            }
            #expect(refused?.code == .clientCertificateRefused || refused?.code == .unreachable)

            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            #expect(try await channel.send(.backend(.get, port, "/ping")).status == .ok)
            fixture.revoked.withLock { _ = $0.insert(fixture.client.certificate.serialNumber) }
            // The kept-alive connection is reused; the middleware checks revocation per request.
            #expect(try await channel.send(.backend(.get, port, "/ping")).status == .unauthorized)
            // A new connection does not complete its handshake.
            let fresh = try SecureChannel(configuration: try fixture.channelConfiguration())
            await #expect(throws: TransportError.self) { try await fresh.send(.backend(.get, port, "/ping")) }
        }
    }

    @Test("a backend whose key is not pinned gets nothing: not the certificate, not the request")
    func wrongPin() async throws {
        let fixture = try BackendFixture()
        try await fixture.run { port in
            var configuration = try fixture.channelConfiguration()
            configuration.serverTrust.hostPins = ["127.0.0.1": [PublicKeyPin(subjectPublicKeyInfo: [1, 2, 3])]]
            let channel = try SecureChannel(configuration: configuration)
            let refused = await #expect(throws: TransportError.self) {
                try await channel.send(.backend(.get, port, "/v1/me"))
            }
            #expect(refused?.code == .untrustedServer)
        }
    }

    @Test("curl with --cert reaches the certificate-only route; without it the handshake fails")
    func curl() async throws {
        let fixture = try BackendFixture()
        try await withTemporaryDirectory { directory in
            let ca = directory.appending(path: "ca.pem")
            let certificate = directory.appending(path: "client.pem")
            let key = directory.appending(path: "client.key")
            try fixture.pki.root.certificate.serializeAsPEM().pemString.write(to: ca, atomically: true, encoding: .utf8)
            try fixture.client.certificate.serializeAsPEM().pemString.write(
                to: certificate,
                atomically: true,
                encoding: .utf8
            )
            try fixture.client.key.pemRepresentation.write(to: key, atomically: true, encoding: .utf8)
            try await fixture.run { port in
                let curl = URL(fileURLWithPath: "/usr/bin/curl")
                let url = "https://127.0.0.1:\(port)/ping"
                let with = try await ExternalProcess.run(
                    curl,
                    arguments: ["-sS", "--cacert", ca.path, "--cert", certificate.path, "--key", key.path, url]
                )
                #expect(with.status == 0 && with.output == "pong CN=alice's phone", "\(with.output)")
                let without = try await ExternalProcess.run(curl, arguments: ["-sS", "--cacert", ca.path, url])
                #expect(without.status != 0)
            }
        }
    }
}
