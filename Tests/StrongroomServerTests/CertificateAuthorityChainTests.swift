// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom-server ca init --offline-root`: the chain file (and what `ca init` prints) holds both certificates
/// as separate PEM blocks, each ending its line, so OpenSSL and the server read both.
@Suite struct CertificateAuthorityChainTests {
    @Test("an offline root's chain is two well-formed PEM blocks that OpenSSL reads and verifies")
    func offlineRootChain() async throws {
        try await withTemporaryDirectory { directory in
            let data = directory.appending(path: "data")
            let root = directory.appending(path: "root")
            let initialised = try await ExternalProcess.run(
                ServerProcess.executable,
                arguments: ["ca", "init", "--data-directory", data.path, "--offline-root", root.path]
            )
            try #require(initialised.status == 0, "\(initialised.output)")
            #expect(initialised.output.hasSuffix("-----END CERTIFICATE-----\n"), "\(initialised.output)")
            let chain = data.appending(path: "ca/ca-chain.pem")
            let text = try String(contentsOf: chain, encoding: .utf8)
            #expect(!text.contains("----------"), "blocks run together")
            #expect(text.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3)
            // OpenSSL reads both and the CA certificate verifies against the root (the chain's second block).
            let split = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                arguments: ["storeutl", "-noout", "-certs", chain.path]
            )
            #expect(split.output.contains("Total found: 2"), "\(split.output)")
            let blocks = text.components(separatedBy: "-----END CERTIFICATE-----\n").filter { !$0.isEmpty }
            try #require(blocks.count == 2)
            try (blocks[0] + "-----END CERTIFICATE-----\n").write(
                to: directory.appending(path: "ca.pem"),
                atomically: true,
                encoding: .utf8
            )
            try (blocks[1] + "-----END CERTIFICATE-----\n").write(
                to: directory.appending(path: "root.pem"),
                atomically: true,
                encoding: .utf8
            )
            let verified = try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/openssl"),
                arguments: ["verify", "-CAfile", "root.pem", "ca.pem"],
                directory: directory
            )
            #expect(verified.status == 0, "\(verified.output)")
        }
    }
}
