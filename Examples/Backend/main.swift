// Strongroom — SPDX-License-Identifier: Apache-2.0
// A small backend of the kind an app developer owns, protected by StrongroomBackend: mutual TLS with client
// certificates from the app's CA, TSV1-signed requests from known keys, and an integrity policy on the money route.
// `BackendExampleTests` runs it and drives it with `SecureChannel` and with `curl --cert`.
//
//     strongroom-example-backend --certificate server.pem --key server.key --client-ca ca.pem \
//         --signers signers.json [--revoked revoked.txt] [--port 8443] [--port-file FILE]
//
// signers.json maps each client ID to its TSV1 (Ed25519) public key, base64url; revoked.txt lists revoked
// certificate serial numbers in hex, one per line.
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StrongroomBackend
import StrongroomCrypto
import StrongroomPKI
import StrongroomShield
import StrongroomWire
import X509

@main
struct ExampleBackend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strongroom-example-backend",
        abstract: "A sample Hummingbird backend protected by StrongroomBackend."
    )

    @Option(help: "The server's certificate chain (PEM).") var certificate: String
    @Option(help: "The server's private key (PEM).") var key: String
    @Option(name: .customLong("client-ca"), help: "The CA client certificates are issued by (PEM).") var clientCA:
        String
    @Option(help: "A JSON object mapping client IDs to TSV1 public keys (base64url).") var signers: String
    @Option(help: "Revoked certificate serial numbers (hex), one per line.") var revoked: String?
    @Option(help: "The port to listen on (0 for any).") var port = 8443
    @Option(name: .customLong("port-file"), help: "Write the bound port here.") var portFile: String?

    func run() async throws {
        let chain = try CertificateBundle.certificates(
            from: Array(try Data(contentsOf: URL(fileURLWithPath: certificate)))
        )
        let privateKey = try Certificate.PrivateKey(pemEncoded: try String(contentsOfFile: key, encoding: .utf8))
        let keys = try JSONDecoder().decode(
            [String: String].self,
            from: Data(contentsOf: URL(fileURLWithPath: signers))
        )
        .mapValues { try SigningPublicKey(base64URLEncoded: $0) }
        let revokedSerials =
            try revoked.map { path in
                Set(
                    try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
                        .map { try Self.serialNumber(hex: String($0)) }
                )
            } ?? []
        let policy = try ClientCertificatePolicy(
            anchorsPEM: try String(contentsOfFile: clientCA, encoding: .utf8),
            revocation: .serials(revokedSerials)
        )

        let router = Router(context: BackendRequestContext.self)
        let certified = router.group().add(middleware: ClientCertificateMiddleware(policy: policy))
        // The certificate alone: a health route for devices.
        certified.get("ping") { _, _ in "pong" }
        let signed = certified.group("v1").add(middleware: TSV1SignatureMiddleware(signers: .keys(keys)))
        signed.get("me") { _, context in "hello \(context.caller.signer?.clientID ?? "")" }
        // Money moves only from a device whose recent report is clean.
        signed.group("transfers")
            .add(middleware: IntegrityVerdictMiddleware(policy: .init(worstAccepted: .clean)))
            .post { request, context -> String in
                let body = try await request.body.collect(upTo: 64 << 10)
                return "accepted \(body.readableBytes) bytes from \(context.caller.signer?.clientID ?? "")"
            }

        let portFile = portFile
        let app = Application(
            router: router,
            server: try .mutualTLS(certificateChain: chain, privateKey: privateKey, clientCertificates: policy),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                guard let portFile, let bound = channel.localAddress?.port else { return }
                try? String(bound).write(toFile: portFile, atomically: true, encoding: .utf8)
            },
            logger: Logger(label: "example-backend")
        )
        try await app.runService()
    }

    /// A serial number from its hex text (as `strongroom-server ca list` prints it).
    static func serialNumber(hex: String) throws -> Certificate.SerialNumber {
        let digits = Array(hex.trimmingCharacters(in: .whitespaces).utf8)
        guard !digits.isEmpty, digits.count <= 40, digits.count.isMultiple(of: 2) else {
            throw ValidationError("\(hex) is not a serial number in hex")
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                throw ValidationError("\(hex) is not a serial number in hex")
            }
            bytes.append(byte)
        }
        return Certificate.SerialNumber(bytes: bytes)
    }
}
