// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomPKI
import StrongroomTesting
import Testing

/// A PKCS#12 file chooses how much work its import costs (iterations, bags): the limits are checked before any key
/// is derived (issue 44, item 3). Files are made by OpenSSL at test time.
@Suite struct PKCS12CostTests {
    private static func openssl(_ arguments: [String], in directory: URL) async throws -> ExternalProcess.Outcome {
        try await ExternalProcess.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments: arguments,
            directory: directory
        )
    }

    /// The fixture's key and certificate as PEM in `directory/identity.pem`.
    private static func identityPEM(in directory: URL) async throws {
        try Data(try ChainAndPKCS12Tests.fixture("ec-default.p12")).write(to: directory.appending(path: "in.p12"))
        let opened = try await openssl(
            ["pkcs12", "-in", "in.p12", "-nodes", "-passin", "pass:fixture pass", "-out", "identity.pem"],
            in: directory
        )
        try #require(opened.status == 0, "\(opened.output)")
    }

    @Test(
        "more iterations than the cap are refused as tooExpensive before anything is derived; the cap itself imports",
        arguments: [(2_048, true), (600_000, true), (600_001, false), (100_000_000, false)]
    )
    func iterations(count: Int, accepted: Bool) async throws {
        try await withTemporaryDirectory { directory in
            try await Self.identityPEM(in: directory)
            // The MAC first: huge counts are not derived by OpenSSL here either (-nomac for the costly ones).
            let mac = count > 600_000 ? ["-nomac"] : []
            let made = try await Self.openssl(
                [
                    "pkcs12", "-export", "-in", "identity.pem", "-iter", "\(count)", "-passout", "pass:p", "-out",
                    "out.p12",
                ]
                    + mac,
                in: directory
            )
            try #require(made.status == 0, "\(made.output)")
            let bytes = Array(try Data(contentsOf: directory.appending(path: "out.p12")))
            if accepted {
                #expect(try PKCS12.import(bytes, passphrase: "p").chain.count == 1)
            } else {
                let refused = #expect(throws: PKIError.self) { try PKCS12.import(bytes, passphrase: "p") }
                #expect(refused?.code == .tooExpensive)
            }
        }
    }

    @Test("a file with more bags than the cap is refused as tooExpensive")
    func bags() async throws {
        try await withTemporaryDirectory { directory in
            try await Self.identityPEM(in: directory)
            // 70 copies of the CA certificate as extra certificate bags, unencrypted so the scan sees them.
            let ca = String(decoding: try ChainAndPKCS12Tests.fixture("ca.pem"), as: UTF8.self)
            try String(repeating: ca + "\n", count: 70).write(
                to: directory.appending(path: "many.pem"),
                atomically: true,
                encoding: .utf8
            )
            let made = try await Self.openssl(
                [
                    "pkcs12", "-export", "-in", "identity.pem", "-certfile", "many.pem", "-certpbe", "NONE",
                    "-passout", "pass:p", "-out", "out.p12",
                ],
                in: directory
            )
            try #require(made.status == 0, "\(made.output)")
            let refused = #expect(throws: PKIError.self) {
                try PKCS12.import(Array(try Data(contentsOf: directory.appending(path: "out.p12"))), passphrase: "p")
            }
            #expect(refused?.code == .tooExpensive)
        }
    }
}
