// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom pki …` end to end, with OpenSSL as the CA and as the judge of what the CLI makes.
@Suite struct CLIPKITests {
    func openssl(_ arguments: [String], in directory: URL) async throws -> ExternalProcess.Outcome {
        try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments: arguments,
            directory: directory
        )
    }

    @Test("keygen, csr, an OpenSSL CA signs, identity, export-p12, import-p12 elsewhere, show, verify, list")
    func session() async throws {
        try await withTemporaryDirectory { home in
            let cli = CLISessionTests.CLI(url: "", home: home)
            try Data("keychain pass\n".utf8).write(to: home.appending(path: "kc.pass"))
            try Data("p12 pass\n".utf8).write(to: home.appending(path: "p12.pass"))
            let first = ["--keychain-file", "first", "--passphrase-file", "kc.pass"]
            let second = ["--keychain-file", "second", "--passphrase-file", "kc.pass"]
            _ = try await cli.ok(["keychain", "create", "--kdf", "minimum"] + first)
            _ = try await cli.ok(["keychain", "create", "--kdf", "minimum"] + second)

            let generated = try await cli.ok(["pki", "keygen", "--tag", "device", "--type", "p384"] + first)
            #expect(generated.hasPrefix("pin sha256/") && generated.contains("BEGIN PUBLIC KEY"))
            try await cli.fails(["pki", "keygen", "--tag", "device"] + first, status: 9)  // the tag is taken
            try await cli.fails(["pki", "keygen", "--tag", "x", "--type", "rsa-1024"] + first, status: 4)

            let csr = try await cli.ok(
                [
                    "pki", "csr", "--tag", "device", "--common-name", "device", "--organization", "Example Ltd",
                    "--country", "GB", "--uri", "urn:strongroom:client:device", "--dns", "device.example.com",
                    "--client-auth",
                ] + first
            )
            try Data((csr + "\n").utf8).write(to: home.appending(path: "device.csr"))
            let checked = try await openssl(["req", "-verify", "-noout", "-in", "device.csr"], in: home)
            #expect(checked.status == 0, "\(checked.output)")
            #expect(try await cli.ok(["pki", "show", "device.csr"]).contains("signature:   valid"))

            // OpenSSL plays the CA.
            for arguments in [
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    "ca.key", "-out", "ca.pem", "-subj", "/CN=CLI test CA", "-days", "2",
                ],
                [
                    "x509", "-req", "-in", "device.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                    "-days", "1", "-copy_extensions", "copy", "-out", "device.pem",
                ],
            ] {
                let outcome = try await openssl(arguments, in: home)
                try #require(outcome.status == 0, "\(outcome.output)")
            }
            let shown = try await cli.ok(["pki", "show", "device.pem"])
            #expect(shown.contains("URI:urn:strongroom:client:device") && shown.contains("key:         p384"))
            let verified = try await cli.ok(
                [
                    "pki", "verify", "device.pem", "--anchors", "ca.pem", "--purpose", "client", "--uri",
                    "urn:strongroom:client:device",
                ]
            )
            #expect(verified.hasPrefix("ok"))
            try await cli.fails(
                ["pki", "verify", "device.pem", "--anchors", "ca.pem", "--purpose", "server"],
                status: 3
            )
            try await cli.fails(["pki", "verify", "device.pem", "--anchors", "device.pem"], status: 3)

            let bundle =
                try Data(contentsOf: home.appending(path: "device.pem"))
                + Data(contentsOf: home.appending(path: "ca.pem"))
            try bundle.write(to: home.appending(path: "device-chain.pem"))
            _ = try await cli.ok(
                ["pki", "identity", "--tag", "device", "--certificate", "device-chain.pem", "--label", "device"] + first
            )
            try await cli.fails(
                ["pki", "identity", "--tag", "device", "--certificate", "ca.pem", "--label", "other"] + first,
                status: 3
            )
            #expect(
                try await cli.ok(
                    [
                        "pki", "export-p12", "--label", "device", "--output", "device.p12", "--p12-passphrase-file",
                        "p12.pass",
                    ]
                        + first
                ) == "wrote device.p12"
            )
            let info = try await openssl(
                ["pkcs12", "-in", "device.p12", "-passin", "pass:p12 pass", "-info", "-nokeys"],
                in: home
            )
            #expect(info.status == 0 && info.output.contains("BEGIN CERTIFICATE"), "\(info.output)")
            let keyOut = try await openssl(
                ["pkcs12", "-in", "device.p12", "-passin", "pass:p12 pass", "-nocerts", "-nodes"],
                in: home
            )
            #expect(keyOut.status == 0 && keyOut.output.contains("BEGIN PRIVATE KEY"), "\(keyOut.output)")

            try Data("wrong\n".utf8).write(to: home.appending(path: "wrong.pass"))
            try await cli.fails(
                ["pki", "import-p12", "device.p12", "--label", "device", "--p12-passphrase-file", "wrong.pass"]
                    + second,
                status: 3
            )
            #expect(
                try await cli.ok(
                    ["pki", "import-p12", "device.p12", "--label", "device", "--p12-passphrase-file", "p12.pass"]
                        + second
                ).hasPrefix("imported device")
            )
            let listed = try await cli.ok(["pki", "list"] + second)
            #expect(listed.contains("idnt") && listed.contains("device.chain.1"), "\(listed)")
            let issuedByCA = try await cli.ok(["pki", "list", "--issuer", "CN=CLI test CA"] + second)
            // The identity and the (self-signed) CA certificate stored as its chain.
            #expect(issuedByCA.split(separator: "\n").count == 2 && issuedByCA.contains("idnt"), "\(issuedByCA)")
            #expect(try await cli.ok(["pki", "list", "--issuer", "CN=Another CA"] + second).isEmpty)
            let publicKeys = try await cli.ok(["pki", "list", "--type", "ec", "--key-class", "public"] + first)
            #expect(publicKeys.contains("[ec 384 public]") && !publicKeys.contains("private"), "\(publicKeys)")

            // Neither keychain file holds the private key OpenSSL printed.
            let keyLine = keyOut.output.split(separator: "\n").first { !$0.hasPrefix("-----") && $0.count > 40 }
            let findings = try PlaintextScan.scan(home, for: [String(keyLine ?? "")])
            #expect(!findings.contains { $0.file == "first" || $0.file == "second" }, "\(findings)")
        }
    }
}
