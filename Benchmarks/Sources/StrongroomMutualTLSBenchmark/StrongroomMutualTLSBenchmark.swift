// Strongroom — SPDX-License-Identifier: Apache-2.0
// The Swift half of Scripts/bench-mtls.sh (not a test). Against two instances of one server (plain HTTP, and HTTPS
// asking for client certificates) it times enrollments (key + CSR + verify + issue + record + store, one at a time),
// then the same record read N times over plain HTTP, server-only TLS and mutual TLS, printed side by side.
import Foundation
import StrongroomClient
import StrongroomKeychain

@main
enum StrongroomMutualTLSBenchmark {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 6, let plainURL = URL(string: arguments[1]), let tlsURL = URL(string: arguments[2]),
            let count = Int(arguments[5]), count > 0
        else {
            print("usage: StrongroomMutualTLSBenchmark PLAIN_URL TLS_URL TOKEN SERVER_CA_PEM COUNT")
            return
        }
        let roots = try ServerTrust.roots(pemBundle: try String(contentsOfFile: arguments[4], encoding: .utf8))
        let tls = Client.TransportOptions(serverTrust: ServerTrust(roots: roots))
        var configuration = try await Client.register(
            token: arguments[3],
            clientName: "bench-mtls",
            apiURL: tlsURL,
            options: tls
        )
        let serverOnly = try Client(configuration: configuration, options: tls)
        let id = try await serverOnly.write(type: "bench", data: ["field": String(repeating: "a", count: 1024)])
            .meta.recordID

        let clock = ContinuousClock()
        var latencies: [Duration] = []
        var mutual = serverOnly
        let keychain = Keychain.inMemory()
        let enrolling = try await clock.measure {
            for index in 0..<count {
                let started = clock.now
                mutual = try await serverOnly.enroll(keychain: keychain, label: "device-\(index)")
                latencies.append(clock.now - started)
            }
        }
        latencies.sort()

        func reads(_ client: Client) async throws -> Double {
            _ = try await client.read(recordID: id)  // warm-up
            let elapsed = try await clock.measure { for _ in 0..<count { _ = try await client.read(recordID: id) } }
            return Double(count) / elapsed.seconds
        }
        configuration.apiURL = plainURL
        let plain = try await reads(Client(configuration: configuration))
        let server = try await reads(serverOnly)
        let both = try await reads(mutual)

        print("Mutual TLS (release, \(count) operations each, one at a time, loopback, SQLite)")
        print(
            "  enrollments (P-256 key + CSR + verify + issue + record + keychain): "
                + "\(rate(Double(count) / enrolling.seconds))/s, p50 \(ms(latencies[count / 2])), "
                + "p99 \(ms(latencies[min(count - 1, count * 99 / 100)]))"
        )
        print("  reads, plain HTTP (pooled keep-alive):                  \(rate(plain))/s")
        print("  reads, server-only TLS (pinned executor, kept-alive):    \(rate(server))/s")
        print(
            "  reads, mutual TLS (same executor, client certificate):  \(rate(both))/s = \(ratio(both / server))× server-only TLS"
        )
    }

    static func rate(_ value: Double) -> String { String(format: "%.0f", value) }
    static func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
    static func ms(_ duration: Duration) -> String { String(format: "%.1f ms", duration.seconds * 1000) }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
