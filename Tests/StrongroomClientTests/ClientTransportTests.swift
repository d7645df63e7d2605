// Strongroom — SPDX-License-Identifier: Apache-2.0

import AsyncHTTPClient
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// TLS trust, SPKI pinning, timeouts, retries and cancellation, against the real server executable over HTTPS.
@Suite struct ClientTransportTests {
    /// Runs the server with `certificate`/`key` on a fresh data directory; `body` gets its `https://localhost` URL
    /// and the directory.
    private func withTLSServer<R>(
        _ certificates: TestCertificates,
        rogue: Bool = false,
        _ body: (URL, URL) async throws -> R
    ) async throws -> R {
        try await withTemporaryDirectory { directory in
            let tls = try certificates.serverArguments(
                rogue ? certificates.rogue : certificates.server,
                rogue ? certificates.rogueKey : certificates.serverKey,
                in: directory
            )
            let server = try await ServerProcess(
                arguments: [
                    "--data-directory", directory.path, "--registration-token", ClientTestServer.registrationToken,
                ]
                    + tls + ServerProcess.patientIdle,
                scheme: "https"
            )
            defer { server.stop() }
            let url = try #require(URL(string: "https://localhost:\(server.port)"))
            return try await body(url, directory)
        }
    }

    @Test("a private CA and a pinned key with a backup pin: records and files round-trip over HTTPS")
    func pinnedRoundTrip() async throws {
        let certificates = try TestCertificates()
        let backup = try #require(PublicKeyPin(base64: "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI="))
        let options = Client.TransportOptions(
            serverTrust: ServerTrust(
                roots: .certificates([certificates.ca]),
                pins: [try PublicKeyPin(certificate: certificates.server), backup]
            ),
            requestTimeout: ClientTestServer.unhurried.requestTimeout
        )
        try await withTLSServer(certificates) { url, directory in
            let configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "pinned",
                apiURL: url,
                options: options
            )
            let client = try Client(configuration: configuration, options: options)
            let record = try await client.write(type: "tls", data: ["secret": "over TLS"])
            #expect(try await client.read(recordID: record.meta.recordID).data == ["secret": "over TLS"])

            let plain = directory.appending(path: "plain.bin")
            try Data(repeating: 7, count: 3 << 20).write(to: plain)
            let file = try await client.writeFile(type: "tls-file", fileURL: plain)
            let copy = directory.appending(path: "copy.bin")
            try await client.readFile(recordID: file.meta.recordID, destination: copy)
            #expect(try Data(contentsOf: copy) == Data(contentsOf: plain))
        }
    }

    @Test("a server with another key from the same CA is refused during the handshake; the request never arrives")
    func rogueKeyRefused() async throws {
        let certificates = try TestCertificates()
        let pinned = Client.TransportOptions(
            serverTrust: ServerTrust(
                roots: .certificates([certificates.ca]),
                pins: [try PublicKeyPin(certificate: certificates.server)]
            ),
            requestTimeout: ClientTestServer.unhurried.requestTimeout
        )
        try await withTLSServer(certificates, rogue: true) { url, directory in
            let token = try await Self.singleUseToken(in: directory)
            let refused = await #expect(throws: ClientError.self) {
                try await Client.register(token: token, clientName: "victim", apiURL: url, options: pinned)
            }
            #expect(refused?.code == .untrustedServer)
            // The single-use token still works: the refused registration was never sent.
            let unpinned = Client.TransportOptions(
                serverTrust: ServerTrust(roots: .certificates([certificates.ca])),
                requestTimeout: ClientTestServer.unhurried.requestTimeout
            )
            _ = try await Client.register(token: token, clientName: "second", apiURL: url, options: unpinned)
        }
    }

    @Test("system roots and a foreign CA both refuse the private CA's server")
    func untrustedChains() async throws {
        let certificates = try TestCertificates()
        let other = try TestCertificates()
        try await withTLSServer(certificates) { url, _ in
            for options in [
                Client.TransportOptions(),
                Client.TransportOptions(serverTrust: ServerTrust(roots: .certificates([other.ca]))),
            ] {
                let refused = await #expect(throws: ClientError.self) {
                    try await Client.register(
                        token: ClientTestServer.registrationToken,
                        clientName: "x",
                        apiURL: url,
                        options: options
                    )
                }
                #expect(refused?.code == .untrustedServer, "\(String(describing: refused?.underlying))")
            }
        }
    }

    @Test("pin texts: base64 of 32 bytes, with or without the sha256/ prefix; anything else is nil")
    func pinParsing() throws {
        let text = "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI="
        #expect(PublicKeyPin(base64: text)?.description == text)
        #expect(PublicKeyPin(base64: "sha256/" + text) == PublicKeyPin(base64: text))
        #expect(PublicKeyPin(base64: "c2hvcnQ=") == nil)
        #expect(PublicKeyPin(base64: "not base64") == nil)
    }

    @Test("a pinned client refuses plain http URLs")
    func pinningNeedsHTTPS() async throws {
        let certificates = try TestCertificates()
        let options = Client.TransportOptions(
            serverTrust: ServerTrust(pins: [try PublicKeyPin(certificate: certificates.server)])
        )
        let error = await #expect(throws: ClientError.self) {
            try await Client.register(
                token: "t",
                clientName: "x",
                apiURL: try #require(URL(string: "http://127.0.0.1:9")),
                options: options
            )
        }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("a caller's HTTPClient with pins or a client identity is refused, not dropped; without them it is taken")
    func callerClientWithPins() async throws {
        let certificates = try TestCertificates()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = http.shutdown() }
        let pinned = Client.TransportOptions(
            serverTrust: ServerTrust(pins: [try PublicKeyPin(certificate: certificates.server)])
        )
        let url = try #require(URL(string: "https://127.0.0.1:9"))
        let refused = await #expect(throws: ClientError.self) {
            try await Client.register(token: "t", clientName: "x", apiURL: url, options: pinned, httpClient: http)
        }
        #expect(refused?.code == .invalidConfiguration)
        let configuration = Client.Configuration(
            clientID: UUID(),
            clientName: "x",
            apiKeyID: "k",
            apiSecret: SecureBytes(copying: Array("s".utf8)),
            keys: .generate(),
            apiURL: url
        )
        #expect(throws: ClientError.self) {
            try Client(configuration: configuration, options: pinned, httpClient: http)
        }
        _ = try Client(configuration: configuration, options: .init(), httpClient: http)
    }

    @Test("a server that never answers: timedOut after the request timeout, cancelled when the task is")
    func timeoutAndCancellation() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let url = try #require(URL(string: "http://127.0.0.1:\(silent.port)"))
        let options = Client.TransportOptions(requestTimeout: .milliseconds(300), maximumAttempts: 1)
        let timedOut = await #expect(throws: ClientError.self) {
            try await Client.register(token: "t", clientName: "x", apiURL: url, options: options)
        }
        #expect(timedOut?.code == .timedOut)

        let patient = Client.TransportOptions(requestTimeout: .seconds(60))
        let task = Task { try await Client.register(token: "t", clientName: "x", apiURL: url, options: patient) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let cancelled = await #expect(throws: ClientError.self) { try await task.value }
        #expect(cancelled?.code == .cancelled)
    }

    @Test("the pinned transport keeps one TLS connection alive across requests, file transfers included")
    func keepAlive() async throws {
        let certificates = try TestCertificates()
        let options = Client.TransportOptions(
            serverTrust: ServerTrust(roots: .certificates([certificates.ca])),
            requestTimeout: ClientTestServer.unhurried.requestTimeout
        )
        try await withTLSServer(certificates) { url, directory in
            let configuration = try await Client.register(
                token: ClientTestServer.registrationToken,
                clientName: "kept-alive",
                apiURL: url,
                options: options
            )
            let client = try Client(configuration: configuration, options: options)
            let record = try await client.write(type: "alive", data: ["n": "0"])
            let plain = directory.appending(path: "plain.bin")
            try Data(repeating: 3, count: 1 << 20).write(to: plain)
            let file = try await client.writeFile(type: "alive-file", fileURL: plain)
            for index in 0..<10 {
                #expect(try await client.read(recordID: record.meta.recordID).data == ["n": "0"])
                let copy = directory.appending(path: "copy-\(index).bin")
                if index.isMultiple(of: 5) {
                    try await client.readFile(recordID: file.meta.recordID, destination: copy)
                    #expect(try Data(contentsOf: copy) == Data(contentsOf: plain))
                }
            }
            // Every exchange is over; without keep-alive no connection would be left open. One serves the API
            // host, one the presigned file URLs (127.0.0.1), and the register call's client may still hold one.
            let port = try #require(url.port)
            let open = try withExtendedLifetime(client) { try Self.establishedConnections(toPort: port) }
            #expect((1...3).contains(open), "\(open) connections open")
        }
    }

    @Test(
        "a TLS server that accepts the connection and never completes the handshake is cut off at the timeout",
        .timeLimit(.minutes(10))
    )
    func stalledHandshake() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let url = try #require(URL(string: "https://127.0.0.1:\(silent.port)"))
        let trust = ServerTrust(roots: .certificates([try TestCertificates().ca]))
        let options = Client.TransportOptions(
            serverTrust: trust,
            requestTimeout: .milliseconds(300),
            maximumAttempts: 1
        )
        // Without the bound the handshake would wait forever, into the test's time limit.
        let error = await #expect(throws: ClientError.self) {
            try await Client.register(token: "t", clientName: "x", apiURL: url, options: options)
        }
        #expect(error?.code == .timedOut || error?.code == .transport, "\(String(describing: error))")
    }

    /// Server-side sockets in ESTABLISHED state on `port` (Linux `/proc/net/tcp` and `tcp6`).
    static func establishedConnections(toPort port: Int) throws -> Int {
        let suffix = ":" + String(format: "%04X", port)
        var count = 0
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // procfs reports size 0: read to the end rather than by the file's size.
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            defer { try? handle.close() }  // read-only
            let text = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                if fields.count > 3, fields[1].hasSuffix(suffix), fields[3] == "01" { count += 1 }
            }
        }
        return count
    }

    @Test("an unreachable server is a transport error, at once")
    func unreachable() async throws {
        // A port bound but never listening refuses connections, and stays ours for the test: a closed port could be
        // taken by another test's listener meanwhile (seen in a busy CI run as a timeout instead of a refusal).
        let refusing = try SilentListener(listening: false)
        defer { refusing.close() }
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)"))
        // One attempt and no request deadline to speak of: on a machine so busy that this task waits a minute for
        // a thread, the refusal must still be what is reported, not the deadline (seen in a loaded CI run).
        let options = TransportOptions(requestTimeout: .seconds(3600), maximumAttempts: 1)
        let error = await #expect(throws: ClientError.self) {
            try await Client.register(token: "t", clientName: "x", apiURL: url, options: options)
        }
        #expect(error?.code == .transport)
    }

    private static func singleUseToken(in directory: URL) async throws -> String {
        let outcome = try await ExternalProcess.run(
            ServerProcess.executable,
            arguments: ["token", "create", "--data-directory", directory.path, "--maximum-uses", "1"]
        )
        try #require(outcome.status == 0, "\(outcome.output)")
        return try #require(outcome.output.split(separator: "\n").last.map(String.init))
    }
}

/// A loopback socket that accepts connections into its backlog and never answers (or, not listening, refuses them).
struct SilentListener {
    let fd: Int32
    let port: Int

    init(listening: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
                    && (!listening || listen(fd, 16) == 0)
            }
        }
        try #require(ready)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(fd) }
}
