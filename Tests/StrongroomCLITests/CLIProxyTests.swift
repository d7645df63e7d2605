// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// The CLI behind an HTTP proxy: `--proxy` (or `STRONGROOM_PROXY`, or `http_proxy` / `https_proxy` unless
/// `no_proxy` names the server) carries every request, credentials included; a bad proxy URL, a proxy that is not
/// there, and one that wants credentials are each one clear line.
@Suite struct CLIProxyTests {
    @Test("register, write and read through a proxy that requires credentials; its refusals in the user's words")
    func throughProxy() async throws {
        try await withTemporaryDirectory { home in
            let server = try await ServerProcess(
                arguments: ["--data-directory", home.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            try FileManager.default.createDirectory(at: home.appending(path: "tmp"), withIntermediateDirectories: true)
            let proxy = try await TunnelProxy(
                upstreamPort: server.port,
                requiredAuthorization: "Basic " + Data("app:pa ss".utf8).base64EncodedString()
            )
            let proxyURL = "http://app:pa%20ss@127.0.0.1:\(proxy.port)"
            // No resolver knows this host: only the proxy can carry the requests.
            let cli = CLISessionTests.CLI(url: "http://server.invalid:8080", home: home)
            let id = try await cli.ok(["register", "--token", "tok", "--url", cli.url, "--proxy", proxyURL])
            #expect(UUID(uuidString: id) != nil)
            let environment = ["STRONGROOM_PROXY": proxyURL]
            let written = try await cli.run(["write", "--type", "note", "title=via proxy"], environment: environment)
            #expect(written.status == 0, "\(written.output)")
            let record = written.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let read = try await cli.run(["read", record], environment: environment)
            #expect(read.output.trimmingCharacters(in: .whitespacesAndNewlines) == "title=via proxy")
            #expect(proxy.targets.allSatisfy { $0 == "server.invalid:8080" } && proxy.targets.count >= 3)

            // Without credentials: the proxy's 407 is the answer; a bad URL and a proxy that is not there: exit 4, 10.
            let anonymous = try await cli.run(["read", record, "--proxy", "http://127.0.0.1:\(proxy.port)"])
            #expect(
                anonymous.status == 10 && anonymous.output.contains("proxy wants credentials"),
                "\(anonymous.output)"
            )
            let bad = try await cli.run(["read", record, "--proxy", "socks5://127.0.0.1:1"])
            #expect(bad.status == 4 && bad.output.hasPrefix("error: --proxy:"), "\(bad.output)")

            // The usual variables, as curl reads them: http_proxy for an http server (not HTTP_PROXY), no_proxy.
            let usual = ["http_proxy": proxyURL]
            let before = proxy.targets.count
            let viaUsual = try await cli.run(["read", record], environment: usual)
            #expect(viaUsual.output.trimmingCharacters(in: .whitespacesAndNewlines) == "title=via proxy")
            #expect(proxy.targets.count > before)
            let otherPort = try await cli.run(
                ["read", record],
                environment: usual.merging(["no_proxy": "server.invalid:9"]) { $1 }
            )
            #expect(otherPort.status == 0, "no_proxy names another port: the proxy still carries it")
            for environment in [usual.merging(["no_proxy": ".invalid"]) { $1 }, ["HTTP_PROXY": proxyURL]] {
                let count = proxy.targets.count
                let direct = try await cli.run(["read", record], environment: environment)
                #expect(direct.status == 10 && proxy.targets.count == count, "\(environment): \(direct.output)")
            }
            let badUsual = try await cli.run(["read", record], environment: ["http_proxy": "socks5://127.0.0.1:1"])
            #expect(badUsual.status == 4 && badUsual.output.hasPrefix("error: http_proxy:"), "\(badUsual.output)")
            await proxy.close()
            let gone = try await cli.run(["read", record], environment: environment)
            #expect(gone.status == 10 && gone.output.contains("the proxy at 127.0.0.1"), "\(gone.output)")
        }
    }
}
