// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTransport
import Testing

/// `https_proxy` / `http_proxy` / `no_proxy` read as curl reads them.
@Suite struct HTTPProxyEnvironmentTests {
    private static let secure = URL(string: "https://vault.example.com")!
    private static let plain = URL(string: "http://vault.example.com:8080")!

    @Test("the scheme picks the variable; HTTP_PROXY in capitals is ignored; an empty one is none")
    func variables() throws {
        let proxy = try HTTPProxy(host: "proxy.lan", port: 3128)
        #expect(
            try HTTPProxy.fromEnvironment(for: Self.secure, environment: ["https_proxy": "http://proxy.lan:3128"])
                == proxy
        )
        #expect(
            try HTTPProxy.fromEnvironment(for: Self.secure, environment: ["HTTPS_PROXY": "http://proxy.lan:3128"])
                == proxy
        )
        #expect(
            try HTTPProxy.fromEnvironment(for: Self.secure, environment: ["http_proxy": "http://proxy.lan:3128"]) == nil
        )
        #expect(
            try HTTPProxy.fromEnvironment(for: Self.plain, environment: ["http_proxy": "http://proxy.lan:3128"])
                == proxy
        )
        #expect(
            try HTTPProxy.fromEnvironment(for: Self.plain, environment: ["HTTP_PROXY": "http://proxy.lan:3128"]) == nil
        )
        #expect(try HTTPProxy.fromEnvironment(for: Self.secure, environment: ["https_proxy": ""]) == nil)
        #expect(try HTTPProxy.fromEnvironment(for: Self.secure, environment: [:]) == nil)
        let excluded = ["https_proxy": "http://proxy.lan:3128", "NO_PROXY": "example.com"]
        #expect(try HTTPProxy.fromEnvironment(for: Self.secure, environment: excluded) == nil)
        let error = #expect(throws: TransportError.self) {
            try HTTPProxy.fromEnvironment(for: Self.secure, environment: ["https_proxy": "socks5://proxy.lan:1080"])
        }
        #expect(error?.code == .invalidConfiguration && error?.message.hasPrefix("https_proxy: ") == true)
    }

    @Test(
        "no_proxy entries: names and the names under them, addresses, ranges, ports, *",
        arguments: [
            ("example.com", "vault.example.com", 443, true), ("example.com", "example.com", 443, true),
            (".example.com", "vault.example.com", 443, true), ("*.example.com", "example.com", 443, true),
            ("example.com", "badexample.com", 443, false), ("EXAMPLE.com.", "Vault.Example.COM", 443, true),
            ("other.org, example.com", "vault.example.com", 443, true), ("other.org", "vault.example.com", 443, false),
            ("example.com:8443", "vault.example.com", 443, false), ("example.com:443", "vault.example.com", 443, true),
            ("*", "anything.at.all", 1, true), ("", "vault.example.com", 443, false),
            ("10.0.0.0/8", "10.20.30.40", 443, true), ("10.0.0.0/8", "11.0.0.1", 443, false),
            ("10.1.2.3", "10.1.2.3", 80, true), ("10.1.2.3:80", "10.1.2.3", 443, false),
            ("192.168.1.0/23", "192.168.0.9", 443, true), ("192.168.2.0/23", "192.168.4.1", 443, false),
            ("::1", "[::1]", 443, true), ("0:0:0:0:0:0:0:1", "::1", 443, true), ("[::1]:8080", "::1", 8080, true),
            ("[::1]:8080", "::1", 443, false),
            ("fd00::/8", "[fd12:3456::1]", 443, true), ("fd00::/8", "fe80::1", 443, false),
            ("10.0.0.0/8", "ten.example", 443, false), ("0.0.0.0/0", "203.0.113.9", 443, true),
            ("10.0.0.0/33", "10.0.0.1", 443, false), ("example.com:99999", "example.com", 443, false),
            ("10", "10.0.0.1", 443, false), ("1.2.3.4", "1.2.3.4.example", 443, false),
        ]
    )
    func entries(list: String, host: String, port: Int, expected: Bool) {
        #expect(HTTPProxy.noProxyList(list, includes: host, port: port) == expected)
    }

    @Test("a long no_proxy list is read up to its limit, in linear time")
    func longList() {
        let filler = Array(repeating: "a.example", count: HTTPProxy.maximumNoProxyEntries).joined(separator: ",")
        #expect(HTTPProxy.noProxyList(filler + ",b.example", includes: "b.example", port: 443) == false)
        #expect(HTTPProxy.noProxyList("b.example," + filler, includes: "b.example", port: 443))
    }
}
