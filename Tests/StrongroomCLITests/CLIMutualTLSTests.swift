// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// Mutual TLS as one session of commands (issue 53 item 1), and transport failures in a user's words (item 7).
@Suite struct CLIMutualTLSTests {
    /// Runs `strongroom-server <arguments>` in `directory`; returns its trimmed output, requiring success.
    func server(_ arguments: [String], in directory: URL) async throws -> String {
        let outcome = try await ExternalProcess.run(
            ServerProcess.executable,
            arguments: arguments,
            directory: directory
        )
        try #require(outcome.status == 0, "strongroom-server \(arguments.joined(separator: " ")): \(outcome.output)")
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("tls init, serve --tls, enroll (a failure cleans up, a taken label is 'exists'), revoke, delete")
    func session() async throws {
        try await withTemporaryDirectory { home in
            try FileManager.default.createDirectory(at: home.appending(path: "tmp"), withIntermediateDirectories: true)
            let data = home.appending(path: "data").path
            let made = try await server(["tls", "init", "--data-directory", data], in: home)
            #expect(made.contains("clients trust") && made.contains("server-ca-chain.pem"))
            let again = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["tls", "init", "--data-directory", data],
                directory: home
            )
            #expect(again.status != 0 && again.output.contains("--renew"))
            _ = try await server(
                ["tls", "init", "--data-directory", data, "--renew", "--host", "localhost", "--ip", "127.0.0.1"],
                in: home
            )
            // OpenSSL, independently: the leaf is a server certificate for those names under the CA clients trust.
            let checked = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                arguments: [
                    "verify", "-CAfile", "data/tls/server-ca-chain.pem", "-purpose", "sslserver", "-verify_ip",
                    "127.0.0.1", "-verify_hostname", "localhost", "data/tls/server-chain.pem",
                ],
                directory: home
            )
            #expect(checked.status == 0, "\(checked.output)")
            try Data("keychain pass\n".utf8).write(to: home.appending(path: "kc.pass"))
            let keychain = ["--keychain-file", "kc", "--passphrase-file", "kc.pass"]
            let trust = ["--ca-file", "data/tls/server-ca-chain.pem"]
            var cli = CLISessionTests.CLI(url: "", home: home)
            _ = try await cli.ok(["keychain", "create", "--kdf", "minimum"] + keychain)

            // No client CA yet: enrollment fails and leaves no key behind, so the retry below starts clean.
            var id = ""
            do {
                let plain = try await ServerProcess(
                    arguments: ["--data-directory", data, "--tls", "--registration-token", "tok"],
                    scheme: "https"
                )
                defer { plain.stop() }
                cli = CLISessionTests.CLI(url: plain.baseURL, home: home)
                _ = try await cli.ok(["register", "--token", "tok", "--url", plain.baseURL] + trust)
                id = try await cli.ok(["write", "--type", "note", "body=over mutual TLS"] + trust)
                try await cli.fails(["pki", "enroll", "--label", "device"] + keychain + trust, status: 7)
                #expect(try await cli.ok(["pki", "list", "--label", "device"] + keychain).isEmpty)
            }

            _ = try await server(["ca", "init", "--data-directory", data], in: home)
            let mutual = try await ServerProcess(arguments: ["--data-directory", data, "--tls"], scheme: "https")
            defer { mutual.stop() }
            _ = try await cli.ok(["profile", "set-url", mutual.baseURL])
            let enrolled = try await cli.ok(["pki", "enroll", "--label", "device"] + keychain + trust)
            #expect(enrolled.hasPrefix("enrolled device"))
            let taken = try await cli.run(["pki", "enroll", "--label", "device"] + keychain + trust)
            #expect(taken.status == 9 && taken.output.contains("already holds"), "\(taken.output)")
            let identity = ["--client-identity", "device"] + keychain + trust
            #expect(try await cli.ok(["read", id] + identity) == "body=over mutual TLS")
            // doctor (item 9): a fresh 24-hour certificate is healthy, and says the server accepted it.
            let healthy = try await cli.run(["doctor"] + identity).output
            #expect(healthy.contains("ok   certificate: valid for 2") && healthy.contains("server accepted it"))
            #expect(healthy.contains("ok   server:") && healthy.contains("TLSv1."), "\(healthy)")

            let listed = try await server(["ca", "list", "--data-directory", data, "--json"], in: home)
            let certificates = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]
            let serial = try #require(certificates?.first?["serial"] as? String)
            #expect(certificates?.first?["status"] as? String == "active")
            _ = try await server(["ca", "revoke", serial, "--data-directory", data], in: home)
            let revoked = try await cli.run(["read", id] + identity)
            #expect(revoked.status == 8, "\(revoked.output)")
            #expect(revoked.output.contains("client certificate") && !revoked.output.contains("BoringSSL"))
            #expect(!revoked.output.contains("could not be reached") && !revoked.output.contains("/"))
            let refused = try await cli.run(["doctor"] + identity).output
            #expect(refused.contains("FAIL certificate: the server refused it"), "\(refused)")
            #expect(refused.contains("ok   server:"), "reached, then refused: \(refused)")

            #expect(try await cli.ok(["pki", "delete", "--label", "device"] + keychain).contains("identity, key pair"))
            try await cli.fails(["pki", "delete", "--label", "device"] + keychain, status: 7)
            // The label is free again.
            _ = try await cli.ok(["pki", "enroll", "--label", "device"] + keychain + trust)
        }
    }

    @Test("transport failures say what happened and what to try, never a library type or a build path")
    func wording() async throws {
        try await withTemporaryDirectory { home in
            try FileManager.default.createDirectory(at: home.appending(path: "tmp"), withIntermediateDirectories: true)
            let data = home.appending(path: "data").path
            _ = try await server(["tls", "init", "--data-directory", data], in: home)
            let secure = try await ServerProcess(
                arguments: ["--data-directory", data, "--tls", "--registration-token", "tok"],
                scheme: "https"
            )
            defer { secure.stop() }
            let trust = ["--ca-file", "data/tls/server-ca-chain.pem"]
            let cli = CLISessionTests.CLI(url: secure.baseURL, home: home)
            _ = try await cli.ok(["register", "--token", "tok", "--url", secure.baseURL] + trust)
            let record = UUID().uuidString.lowercased()
            let port = secure.port

            func expectFailure(_ arguments: [String], status: Int32, saying words: String) async throws {
                let outcome = try await cli.run(arguments)
                #expect(outcome.status == status, "\(arguments): \(outcome.output)")
                #expect(outcome.output.contains(words), "\(arguments): \(outcome.output)")
                for jargon in ["NIO", "BoringSSL", "errno", ".swift", ".cc"] {
                    #expect(!outcome.output.contains(jargon), "\(arguments): \(outcome.output)")
                }
            }
            _ = try await cli.ok(["profile", "set-url", "http://127.0.0.1:\(port)"])
            try await expectFailure(["read", record], status: 10, saying: "use https://")
            // doctor says so too, instead of "ok over plain HTTP" (item 9).
            let plain = try await cli.run(["doctor"]).output
            #expect(plain.contains("FAIL server:") && plain.contains("use https://"), "\(plain)")
            _ = try await cli.ok(["profile", "set-url", "https://127.0.0.1:\(port)"])
            try await expectFailure(["read", record], status: 10, saying: "not trusted")
            _ = try await cli.ok(["profile", "set-url", "http://127.0.0.1:\(try ServerProcess.freePort())"])
            try await expectFailure(["read", record], status: 10, saying: "is the server running")
            let stopped = try await cli.run(["doctor"]).output
            #expect(stopped.contains("FAIL server:") && stopped.contains("--   clock: not checked"), "\(stopped)")
            try await expectFailure(
                ["profile", "set-url", "https://127.0.0.1:\(port)/v1"],
                status: 4,
                saying: "without /v1"
            )
            // --verbose keeps the library's detail for whoever needs it.
            let verbose = try await cli.run(["read", record, "--verbose"])
            #expect(verbose.output.contains("caused by:") && verbose.output.contains("errno"), "\(verbose.output)")
        }
    }
}
