// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomPKI
import StrongroomServer
import X509

#if canImport(Glibc)
import Glibc
#endif

/// `strongroom-server tls …`: the server's own TLS certificate, from a server CA the data directory keeps, for a
/// deployment without a certificate from elsewhere (a public CA, an ACME client, a company CA).
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Make the server's HTTPS certificate from a server CA kept in the data directory.",
        subcommands: [Initialize.self]
    )

    /// Where `tls init` writes, inside the data directory.
    struct Files: Sendable {
        var folder: String
        init(dataDirectory: String) { folder = dataDirectory + "/tls" }
        /// The server CA's files are `server-ca-key.pem` and `server-ca-chain.pem` (what clients trust).
        static let caPrefix = "server-ca"
        var trust: String { folder + "/server-ca-chain.pem" }
        var chain: String { folder + "/server-chain.pem" }
        var key: String { folder + "/server-key.pem" }
    }

    struct Initialize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Create the server CA (once) and issue the server's certificate for the names given.",
            discussion: """
                Writes <data>/tls/server-chain.pem and server-key.pem (0600), which `serve --tls` uses, and \
                <data>/tls/server-ca-chain.pem, which clients trust (`strongroom --ca-file`). Without --host or \
                --ip the certificate names localhost, 127.0.0.1 and ::1. Run it again with --renew for a new key and \
                certificate from the same CA (clients keep trusting it); restart the server to use them.
                """
        )
        @OptionGroup var data: DataOptions
        @Option(name: .customLong("host"), help: "A DNS name the server is reached at (repeatable).")
        var hosts: [String] = []
        @Option(name: .customLong("ip"), help: "An IP address the server is reached at (repeatable).")
        var addresses: [String] = []
        @Option(help: "Days the server certificate is valid (default 397).") var days = 397
        @Option(help: "p256 (default) or p384, for the CA and the server key.") var algorithm = "p256"
        @Flag(help: "Replace an existing server certificate and key (the server CA stays).") var renew = false

        func validate() throws {
            guard (1...3650).contains(days) else { throw ValidationError("--days is 1 to 3650") }
            guard hosts.count + addresses.count <= CertificateAuthority.maximumServerNames else {
                throw ValidationError("at most \(CertificateAuthority.maximumServerNames) --host and --ip in all")
            }
        }

        func run() async throws {
            guard let algorithm = KeyAlgorithm(name: algorithm), algorithm == .p256 || algorithm == .p384 else {
                throw ValidationError("--algorithm is p256 or p384")
            }
            let ips = try (hosts.isEmpty && addresses.isEmpty ? ["127.0.0.1", "::1"] : addresses).map { text in
                guard let address = IPAddress(text) else { throw ValidationError("--ip \(text) is not an IP address") }
                return address
            }
            let names = hosts.isEmpty && addresses.isEmpty ? ["localhost"] : hosts
            umask(0o077)
            let files = Files(dataDirectory: data.dataDirectory)
            let (directory, renew, days) = (data.dataDirectory, renew, days)
            // Files, fsync and key generation: on the blocking executor.
            let certificate = try await BlockingExecutor.shared.run { _ in
                try DataDirectory.prepare(directory)
                if !renew, FileManager.default.fileExists(atPath: files.chain) {
                    throw CommandFailure(
                        "\(files.chain) exists: pass --renew for a new certificate from the same server CA",
                        exitCode: ServerExitCode.exists
                    )
                }
                let now = Date()
                let authority =
                    try CertificateAuthority.load(at: files.folder, prefix: Files.caPrefix)
                    ?? CertificateAuthority.initialize(
                        at: files.folder,
                        algorithm: algorithm,
                        name: "Strongroom server CA",
                        days: 3650,
                        prefix: Files.caPrefix,
                        now: now
                    )
                let key = try algorithm.generatePrivateKey()
                let certificate = try authority.issueServerCertificate(
                    for: key.publicKey,
                    dnsNames: names,
                    ipAddresses: ips,
                    lifetime: .seconds(Int64(days) * 86_400),
                    now: now
                )
                // The key first: a chain on disk always has its key beside it.
                try AtomicFile.write(Data(try key.pemString().utf8), to: files.key)
                let chain = try ([certificate] + authority.chain).map { try $0.pemString() + "\n" }.joined()
                try AtomicFile.write(Data(chain.utf8), to: files.chain)
                return certificate
            }
            let until = ISO8601DateFormatter().string(from: certificate.notValidAfter)
            let named = (names + ips.map(\.description)).joined(separator: ", ")
            print("server certificate  \(files.chain)  (\(named); until \(until))")
            print("server key          \(files.key)")
            print("clients trust       \(files.trust)  (strongroom --ca-file)")
            print("serve it with       strongroom-server serve --tls --data-directory \(data.dataDirectory)")
        }
    }
}
