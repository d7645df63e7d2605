// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import StrongroomBackend
import StrongroomCrypto
import StrongroomPKI
import StrongroomShield
import StrongroomTesting
import StrongroomTransport
import StrongroomWire
import SwiftASN1
import Testing
import X509

/// `Examples/Backend` (the `strongroom-example-backend` executable), run as a process and driven as its users
/// would: an app with `SecureChannel`, and `curl --cert`.
@Suite struct BackendExampleTests {
    /// The executable built beside the test runner.
    private static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appending(path: "strongroom-example-backend")
    }

    @Test("the example backend: pinned, mutual-TLS, signed requests from SecureChannel; integrity on transfers; curl")
    func example() async throws {
        let fixture = try BackendFixture()
        let revokedClient = try fixture.pki.leaf(commonName: "a lost phone", usage: [.clientAuth])
        try await withTemporaryDirectory { directory in
            func write(_ text: String, _ name: String) throws -> String {
                let url = directory.appending(path: name)
                try text.write(to: url, atomically: true, encoding: .utf8)
                return url.path
            }
            let server = try write(try fixture.server.certificate.serializeAsPEM().pemString, "server.pem")
            let serverKey = try write(fixture.server.key.pemRepresentation, "server.key")
            let ca = try write(try fixture.pki.root.certificate.serializeAsPEM().pemString, "ca.pem")
            let signers = try write(
                "{\"\(fixture.clientID)\": \"\(fixture.signingKey.publicKey.base64URLEncoded)\"}",
                "signers.json"
            )
            let revoked = try write(revokedClient.certificate.serialNumber.hexString + "\n", "revoked.txt")
            let portFile = directory.appending(path: "port")
            let process = ChildProcess()
            process.executableURL = Self.executable
            process.arguments = [
                "--certificate", server, "--key", serverKey, "--client-ca", ca, "--signers", signers,
                "--revoked", revoked, "--port", "0", "--port-file", portFile.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            let port = try await Self.port(in: portFile, of: process)

            let channel = try SecureChannel(configuration: try fixture.channelConfiguration())
            let me = try await channel.send(.backend(.get, port, "/v1/me"))
            #expect(String(buffer: me.body) == "hello \(fixture.clientID)")
            var transfer = HTTPRequest.backend(.post, port, "/v1/transfers")
            #expect(try await channel.send(transfer, body: .bytes(Array("100 EUR".utf8))).status == .forbidden)
            let report = IntegrityReport(
                verdict: .clean,
                findings: [],
                checks: ["tracer"],
                checkedAt: Int64(Date().timeIntervalSince1970),
                durationMicroseconds: 1
            )
            transfer.headerFields[HTTPField.Name(IntegrityEvidence.headerName)!] =
                IntegrityEvidence(report: report, signingKey: fixture.signingKey).headerValue
            let accepted = try await channel.send(transfer, body: .bytes(Array("100 EUR".utf8)))
            #expect(String(buffer: accepted.body) == "accepted 7 bytes from \(fixture.clientID)")

            let curl = URL(fileURLWithPath: "/usr/bin/curl")
            let url = "https://127.0.0.1:\(port)/ping"
            let clientCertificate = try write(try fixture.client.certificate.serializeAsPEM().pemString, "c.pem")
            let clientKey = try write(fixture.client.key.pemRepresentation, "c.key")
            let pong = try await ExternalProcess.run(
                curl,
                arguments: ["-sS", "--cacert", ca, "--cert", clientCertificate, "--key", clientKey, url]
            )
            #expect(pong.status == 0 && pong.output == "pong", "\(pong.output)")
            let lostCertificate = try write(try revokedClient.certificate.serializeAsPEM().pemString, "lost.pem")
            let lostKey = try write(revokedClient.key.pemRepresentation, "lost.key")
            let refused = try await ExternalProcess.run(
                curl,
                arguments: ["-sS", "--cacert", ca, "--cert", lostCertificate, "--key", lostKey, url]
            )
            #expect(refused.status != 0, "a revoked certificate must not complete the handshake: \(refused.output)")
        }
    }

    /// The port the backend wrote, once it did (it binds before it writes); fails if the process ends first.
    private static func port(in file: URL, of process: ChildProcess) async throws -> Int {
        while true {
            if let text = try? String(contentsOf: file, encoding: .utf8), let port = Int(text) { return port }
            guard process.isRunning else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the example backend exited"])
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
