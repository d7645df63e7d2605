// Strongroom — SPDX-License-Identifier: Apache-2.0
// Live replication's fan-out (Scripts/bench-live.sh starts the servers and runs this): SUBSCRIBERS separate clients,
// each shared the writer's type, each holding a long-poll (`POST /v2/sync/changes`, one connection each) on
// SUBSCRIBE-URL; the writer writes ROUNDS records through WRITE-URL, one at a time, each once every subscriber has
// seen the previous one and its next long-poll has had 200 ms to reach the server. Printed: the write-to-arrival
// latency over every subscriber and round (from just before the write request to the long-poll's answer), p50 /
// p99 / max, and `GET /health` p50 / p99 with no long-poll beside with every subscriber waiting.
//
// Usage: StrongroomLiveBenchmark WRITE-URL SUBSCRIBE-URL REGISTRATION-TOKEN SUBSCRIBERS ROUNDS
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import StrongroomClient
import StrongroomCore

let arguments = CommandLine.arguments
guard arguments.count == 6, let writeURL = URL(string: arguments[1]), let subscribeURL = URL(string: arguments[2]),
    let subscribers = Int(arguments[4]), (1...10_000).contains(subscribers),
    let rounds = Int(arguments[5]), (1...10_000).contains(rounds)
else {
    FileHandle.standardError.write(
        Data("usage: StrongroomLiveBenchmark WRITE-URL SUBSCRIBE-URL TOKEN SUBSCRIBERS ROUNDS\n".utf8)
    )
    exit(64)
}
let registrationToken = arguments[3]
let clock = ContinuousClock()
let type = "live-fanout"

@Sendable func milliseconds(_ duration: Duration) -> Double {
    (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 1_000
}

func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

/// One connection per waiting subscriber: the pool may open as many as there are subscribers, and more.
let http = HTTPClient(
    eventLoopGroupProvider: .singleton,
    configuration: HTTPClient.Configuration(
        timeout: .init(connect: .seconds(10), read: .seconds(60)),
        connectionPool: .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: subscribers + 64)
    )
)

@Sendable func post(_ base: URL, _ path: String, headers: [(String, String)], body: String) async throws -> (UInt, Data)
{
    var request = HTTPClientRequest(url: base.absoluteString + path)
    request.method = .POST
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    request.body = .bytes(ByteBuffer(string: body))
    let response = try await http.execute(request, timeout: .seconds(60))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    return (response.status.code, Data(buffer: bytes))
}

@Sendable func token(_ configuration: Client.Configuration) async throws -> String {
    let secret = configuration.apiSecret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    let basic = Data("\(configuration.apiKeyID):\(secret)".utf8).base64EncodedString()
    let (status, data) = try await post(
        subscribeURL,
        "/v1/auth/token",
        headers: [("Authorization", "Basic \(basic)"), ("Content-Type", "application/x-www-form-urlencoded")],
        body: "grant_type=client_credentials"
    )
    guard status == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
        let token = object["access_token"] as? String
    else { throw CocoaError(.coderInvalidValue) }
    return token
}

/// The index of the first record of the type after `after` readable by the subscriber, or `after` when none came
/// within `wait` seconds.
@Sendable func changes(_ token: String, after: Int64, wait: Int) async throws -> Int64 {
    let (status, data) = try await post(
        subscribeURL,
        "/v2/sync/changes",
        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
        body: #"{"type":"\#(type)","after_index":\#(after),"wait":\#(wait)}"#
    )
    guard status == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
        let index = (object["last_index"] as? NSNumber)?.int64Value
    else { throw CocoaError(.coderInvalidValue, userInfo: ["status": status]) }
    return index
}

func health() async throws -> Double {
    let start = clock.now
    var request = HTTPClientRequest(url: subscribeURL.absoluteString + "/health")
    request.method = .GET
    let response = try await http.execute(request, timeout: .seconds(30))
    _ = try await response.body.collect(upTo: 1 << 16)
    return milliseconds(clock.now - start)
}

/// Runs `body` over `items`, at most `width` at a time.
func concurrently<T: Sendable, R: Sendable>(
    _ items: [T],
    width: Int = 16,
    _ body: @escaping @Sendable (T) async throws -> R
) async throws -> [R] {
    try await withThrowingTaskGroup(of: (Int, R).self) { group in
        var results = [R?](repeating: nil, count: items.count)
        var next = 0
        for _ in 0..<min(width, items.count) {
            let (index, item) = (next, items[next])
            group.addTask { (index, try await body(item)) }
            next += 1
        }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < items.count {
                let (index, item) = (next, items[next])
                group.addTask { (index, try await body(item)) }
                next += 1
            }
        }
        return results.compactMap { $0 }  // every task answered (a failure threw above)
    }
}

/// Arrivals of the current round, and the round's start.
actor Rounds {
    private var start = ContinuousClock.now
    private var arrived = 0
    private(set) var latencies: [Double] = []
    private var waiter: CheckedContinuation<Void, Never>?
    private var expected = 0

    func begin(expecting count: Int) { (start, arrived, expected) = (.now, 0, count) }

    func arrival() {
        latencies.append(milliseconds(ContinuousClock.now - start))
        arrived += 1
        if arrived == expected, let waiter {
            self.waiter = nil
            waiter.resume()
        }
    }

    func everyoneArrived() async {
        guard arrived < expected else { return }
        await withCheckedContinuation { waiter = $0 }
    }
}

print(
    "Live fan-out: \(subscribers) subscriber(s) on \(subscribeURL.absoluteString), writes through \(writeURL.absoluteString), \(rounds) rounds"
)
let setup = clock.now
let writer = Client(
    configuration: try await Client.register(token: registrationToken, clientName: "live-writer", apiURL: writeURL)
)
_ = try await writer.write(type: type, data: ["n": "0"], plain: [:])
let configurations = try await concurrently(Array(0..<subscribers)) { number in
    try await Client.register(token: registrationToken, clientName: "subscriber-\(number)", apiURL: writeURL)
}
_ = try await concurrently(configurations) { try await writer.share(type: type, readerID: $0.clientID) }
let tokens = try await concurrently(configurations) { try await token($0) }
// Each subscriber starts after the record written before the rounds.
let starts = try await concurrently(tokens) { try await changes($0, after: 0, wait: 0) }
print(String(format: "  set-up (register, share, tokens): %.1f s", milliseconds(clock.now - setup) / 1_000))

var idleHealth: [Double] = []
for _ in 0..<200 { idleHealth.append(try await health()) }

let state = Rounds()
let polls = Task {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (token, start) in zip(tokens, starts) {
            group.addTask {
                var after = start
                var seen = 0
                while seen < rounds {
                    let index = try await changes(token, after: after, wait: 25)
                    guard index > after else { continue }  // the wait ran out: ask again
                    after = index
                    seen += 1
                    await state.arrival()
                }
            }
        }
        try await group.waitForAll()
    }
}
/// CPU seconds used so far by the process `pid` (user + system, from /proc; nil when it cannot be read).
func cpuSeconds(_ pid: String) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}
// The servers whose CPU the rounds use (Scripts/bench-live.sh names them), and this process.
let serverPIDs = (ProcessInfo.processInfo.environment["STRONGROOM_BENCH_SERVER_PIDS"] ?? "").split(separator: " ")
    .map(String.init)
let ownPID = String(getpid())
func cpuNow() -> (client: Double, servers: Double) {
    (cpuSeconds(ownPID) ?? 0, serverPIDs.compactMap(cpuSeconds).reduce(0, +))
}
let cpuBefore = cpuNow()
let roundsStarted = clock.now
var busyHealth: [Double] = []
for round in 0..<rounds {
    // The previous round's answers have been read; the next long-polls need a moment to reach the server.
    try await Task.sleep(for: .milliseconds(200))
    if round > 0 || rounds == 1 { for _ in 0..<5 { busyHealth.append(try await health()) } }
    await state.begin(expecting: subscribers)
    _ = try await writer.write(type: type, data: ["n": String(round + 1)], plain: [:])
    await state.everyoneArrived()
}
try await polls.value
let roundsTook = clock.now - roundsStarted
let cpuAfter = cpuNow()
let latencies = await state.latencies.sorted()
idleHealth.sort()
busyHealth.sort()
func row(_ name: String, _ value: String, _ anchor: String) {
    print(
        "  \(name.padding(toLength: 40, withPad: " ", startingAt: 0)) \(value.padding(toLength: 30, withPad: " ", startingAt: 0)) \(anchor)"
    )
}
row(
    "write to arrival, p50 / p99 / max",
    String(
        format: "%.1f / %.1f / %.1f ms",
        percentile(latencies, 0.5),
        percentile(latencies, 0.99),
        latencies.last ?? .nan
    ),
    "(\(latencies.count) arrivals; target p99 ≤ \(writeURL == subscribeURL ? 100 : 250) ms)"
)
if !serverPIDs.isEmpty {
    // What one write's fan-out costs in CPU, and what that costs in time on this machine's cores at best.
    let client = (cpuAfter.client - cpuBefore.client) * 1_000 / Double(rounds)
    let servers = (cpuAfter.servers - cpuBefore.servers) * 1_000 / Double(rounds)
    let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
    row(
        "CPU per write's fan-out: server(s) / client",
        String(format: "%.0f / %.0f ms", servers, client),
        String(
            format:
                "(all of it spread over %.0f cores: %.0f ms, the floor a fan-out's last arrival has here; %.1f s of rounds)",
            cores,
            (servers + client) / cores,
            milliseconds(roundsTook) / 1_000
        )
    )
}
row(
    "GET /health p50 / p99, idle",
    String(format: "%.2f / %.2f ms", percentile(idleHealth, 0.5), percentile(idleHealth, 0.99)),
    "(200 requests, no long-poll open)"
)
row(
    "GET /health p50 / p99, all waiting",
    String(format: "%.2f / %.2f ms", percentile(busyHealth, 0.5), percentile(busyHealth, 0.99)),
    "(\(busyHealth.count) requests with \(subscribers) long-polls open)"
)
try await http.shutdown().get()
