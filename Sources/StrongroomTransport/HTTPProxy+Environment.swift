// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomPKI

extension HTTPProxy {
    /// The proxy the usual environment variables name for requests to `server`, read as curl reads them:
    /// `https_proxy` (or `HTTPS_PROXY`) for an https server, `http_proxy` for an http one — lowercase only, since a
    /// CGI program receives `HTTP_PROXY` from a request's `Proxy:` header — unless `no_proxy` (or `NO_PROXY`) names
    /// the server (``noProxyList(_:includes:port:)``).
    ///
    /// ```swift
    /// var options = TransportOptions()
    /// options.proxy = try HTTPProxy.fromEnvironment(for: URL(string: "https://vault.example.com")!)
    /// ```
    ///
    /// - Parameters:
    ///   - server: the server's URL (its scheme, host and port).
    ///   - environment: the variables to read; the process's by default.
    /// - Returns: nil when no variable names a proxy for `server`.
    /// - Throws: ``TransportError/Code/invalidConfiguration`` naming the variable when its value is not a proxy URL
    ///   (``init(url:)``).
    public static func fromEnvironment(
        for server: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(TransportError) -> HTTPProxy? {
        let secure = server.scheme?.lowercased() == "https"
        let names = secure ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let value = environment[name]
        else { return nil }
        let exclusions = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        if noProxyList(exclusions, includes: server.host ?? "", port: server.port ?? (secure ? 443 : 80)) {
            return nil
        }
        return try named(by: name, value)
    }

    /// The proxy at `url`, with a refusal's message naming `source` (a variable or an option) first.
    package static func named(by source: String, _ url: String) throws(TransportError) -> HTTPProxy {
        do {
            return try HTTPProxy(url: url)
        } catch {
            throw TransportError(.invalidConfiguration, "\(source): \(error.message)")
        }
    }

    /// The most entries of a `no_proxy` list looked at (a longer list is cut there).
    public static let maximumNoProxyEntries = 1000

    /// Whether the comma-separated `no_proxy` list `list` names `host` at `port`: `*` names every host; a name names
    /// itself and every name under it (a leading `.` or `*.` is the same); an IP address names itself;
    /// `ADDRESS/BITS` names a range; any entry may end in `:PORT` (`[IPv6]:PORT` for an IPv6 address), and then
    /// names only that port. Case, brackets around IPv6 addresses and a trailing dot do not matter.
    public static func noProxyList(_ list: String, includes host: String, port: Int) -> Bool {
        let host = normalized(host)
        guard !host.isEmpty else { return false }
        let address = IPAddress(host)
        for raw in list.split(separator: ",", omittingEmptySubsequences: true).prefix(maximumNoProxyEntries) {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            if entry == "*" { return true }
            guard let (pattern, entryPort) = split(entry), entryPort.map({ $0 == port }) ?? true else { continue }
            if let slash = pattern.firstIndex(of: "/") {
                if let address, let range = IPRange(pattern[..<slash], bits: pattern[pattern.index(after: slash)...]),
                    range.contains(address)
                {
                    return true
                }
            } else if let entryAddress = IPAddress(pattern) {
                if entryAddress.bytes == address?.bytes { return true }
            } else {
                var name = normalized(pattern)
                if name.hasPrefix("*.") { name.removeFirst(2) } else if name.hasPrefix(".") { name.removeFirst() }
                if !name.isEmpty, address == nil, host == name || host.hasSuffix("." + name) { return true }
            }
        }
        return false
    }

    /// A host in the form entries are compared in: lowercase, without brackets or a trailing dot.
    private static func normalized(_ host: some StringProtocol) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// An entry's host part and port (nil: any port); nil when the port is not a port.
    private static func split(_ entry: String) -> (pattern: String, port: Int?)? {
        if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
            let inside = String(entry[entry.index(after: entry.startIndex)..<close])
            let rest = entry[entry.index(after: close)...]
            guard !rest.isEmpty else { return (inside, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
            return (inside, port)
        }
        // One colon: a name or IPv4 address with a port. More: an IPv6 address (with no port).
        let colons = entry.count(where: { $0 == ":" })
        guard colons == 1, let colon = entry.firstIndex(of: ":") else { return (entry, nil) }
        guard let port = Int(entry[entry.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        return (String(entry[..<colon]), port)
    }

    /// An address range `ADDRESS/BITS`.
    private struct IPRange {
        var base: IPAddress
        var bits: Int

        init?(_ address: some StringProtocol, bits text: some StringProtocol) {
            guard let base = IPAddress(String(address)), let bits = Int(text), bits >= 0, bits <= base.bytes.count * 8
            else { return nil }
            (self.base, self.bits) = (base, bits)
        }

        func contains(_ address: IPAddress) -> Bool {
            guard address.bytes.count == base.bytes.count else { return false }
            for index in 0..<base.bytes.count {
                let remaining = bits - index * 8
                if remaining <= 0 { return true }
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                if address.bytes[index] & mask != base.bytes[index] & mask { return false }
            }
            return true
        }
    }
}
