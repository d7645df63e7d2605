// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomPKI
import StrongroomServer
import StrongroomWire

#if canImport(Glibc)
import Glibc
#endif

/// `strongroom-server ca …`: the certificate authority for client certificates.
struct CACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Manage the certificate authority that issues client certificates.",
        subcommands: [Initialize.self, Issue.self, List.self, Revoke.self, RevocationList.self]
    )

    static func authority(_ data: DataOptions) throws -> CertificateAuthority {
        guard let authority = try CertificateAuthority.load(at: data.caFolder) else {
            throw CommandFailure("\(data.caFolder) holds no CA: run `strongroom-server ca init` first")
        }
        return authority
    }

    struct Initialize: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract:
                "Create the CA key (mode 0600) and certificate in the data directory (or --ca-directory); print the chain."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "p256 (default) or p384.") var algorithm = "p256"
        @Option(help: "The CA's common name.") var name = "Strongroom client CA"
        @Option(help: "Days the CA certificate is valid (default 3650).") var days = 3650
        @Option(
            help: "Create an offline root here (its key never enters the data directory); the CA is its intermediate."
        )
        var offlineRoot: String?

        func run() async throws {
            guard let algorithm = KeyAlgorithm(name: algorithm), algorithm == .p256 || algorithm == .p384 else {
                throw ValidationError("--algorithm is p256 or p384")
            }
            umask(0o077)
            if data.resolvedCADirectory == nil { try DataDirectory.prepare(data.dataDirectory) }
            let authority = try CertificateAuthority.initialize(
                at: data.caFolder,
                algorithm: algorithm,
                name: name,
                days: days,
                offlineRoot: offlineRoot
            )
            print(try authority.chainPEM(), terminator: "")
        }
    }

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a client certificate from a CSR file for a registered client; print it as PEM."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "The CSR (PEM or DER).") var csr: String
        @Option(help: "The client ID the certificate is bound to.") var client: String
        @Option(help: "Hours it is valid (default 24).") var hours: Int64 = 24

        func run() async throws {
            guard (1...87_600).contains(hours) else { throw ValidationError("--hours is 1 to 87600") }
            let authority = try CACommand.authority(data)
            let text = try String(contentsOfFile: csr, encoding: .utf8)
            let issued = try await data.withStore { store in
                guard let registered = try await store.client(id: try Self.clientID(client)), registered.enabled else {
                    throw CommandFailure("no enabled client \(client)")
                }
                return try await authority.enroll(
                    csr: text,
                    clientID: registered.clientID,
                    lifetime: .seconds(hours * 3600),
                    store: store,
                    now: Date()
                )
            }
            print(issued.certificate, terminator: "")
        }

        static func clientID(_ text: String) throws -> ClientID {
            guard let id = ClientID(text) else { throw ValidationError("\(text) is not a client ID") }
            return id
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List issued client certificates, newest first.")
        @OptionGroup var data: DataOptions
        @Option(help: "Only this client's.") var client: String?
        @Option(help: "At most this many (default 100).") var limit = 100
        @Flag(help: "Print one JSON array.") var json = false

        /// One certificate as `--json` prints it (times ISO 8601).
        struct Entry: Encodable {
            var serial: String
            var clientID: String
            var notBefore: Date
            var notAfter: Date
            var status: String
            var revokedAt: Date?
            var fingerprint: String
            enum CodingKeys: String, CodingKey {
                case serial, status, fingerprint
                case clientID = "client_id"
                case notBefore = "not_before"
                case notAfter = "not_after"
                case revokedAt = "revoked_at"
            }
        }

        func run() async throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit is 1 to 10000") }
            let certificates = try await data.withStore { store in
                try await store.certificates(clientID: client?.lowercased(), limit: limit)
            }
            let entries = certificates.map { certificate in
                Entry(
                    serial: certificate.serial,
                    clientID: certificate.clientID,
                    notBefore: Date(timeIntervalSince1970: TimeInterval(certificate.notBefore)),
                    notAfter: Date(timeIntervalSince1970: TimeInterval(certificate.notAfter)),
                    status: certificate.revokedAt.map { _ in certificate.revocationReason ?? "revoked" } ?? "active",
                    revokedAt: certificate.revokedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                    fingerprint: certificate.fingerprint
                )
            }
            if json { return try printJSON(entries) }
            printTable(
                ["SERIAL", "CLIENT", "NOT AFTER", "STATUS"],
                entries.map { [$0.serial, $0.clientID, $0.notAfter.formatted(.iso8601), $0.status] }
            )
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a client certificate by serial (hex); it is refused from the next TLS handshake."
        )
        @OptionGroup var data: DataOptions
        @Argument(help: "The serial number as `ca list` prints it.") var serial: String

        func run() async throws {
            let serial = serial.lowercased().filter { $0 != ":" }
            let revoked = try await data.withStore { store in
                try await store.revokeCertificate(
                    serial: serial,
                    at: Int64(Date().timeIntervalSince1970),
                    reason: "revoked"
                )
            }
            guard revoked else { throw CommandFailure("no certificate \(serial) in force") }
            print("revoked \(serial)")
        }
    }

    struct RevocationList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "crl",
            abstract: "Print the CA's signed revocation list (PEM, or DER with --der) for relying parties."
        )
        @OptionGroup var data: DataOptions
        @Option(help: "Hours until its nextUpdate (default 24).") var hours: Int64 = 24
        @Flag(help: "Write DER instead of PEM.") var der = false
        @Option(help: "Write to this new file instead of standard output.") var output: String?

        func run() async throws {
            guard (1...9_600).contains(hours) else { throw ValidationError("--hours is 1 to 9600") }
            let authority = try CACommand.authority(data)
            let list = try await data.withStore { store in
                try await authority.revocationList(store: store, now: Date(), validity: .seconds(hours * 3600))
            }
            let bytes = der ? Data(list.derBytes) : Data(list.pemString.utf8)
            if let output {
                try AtomicFile.write(bytes, to: output, mode: .createNew)
            } else {
                FileHandle.standardOutput.write(bytes)
            }
        }
    }
}
