// Strongroom — SPDX-License-Identifier: Apache-2.0
// Replication benchmark (Scripts/bench-sync.sh starts the server and runs this three times):
//   prepare — N documents of ~1 KiB inserted into an encrypted datastore in batches (the floor the datastore itself
//             sets), then pushed through the server;
//   pull    — in a fresh process, pulled into a second encrypted datastore: documents per second beside the floor and
//             CDTDatastore's published pull figure (100,000 documents in 146 s, 685 docs/s, CDTDatastore issue 460),
//             and this process's peak RSS (VmHWM: the whole process, nothing subtracted);
//   change  — 100 of the documents changed, pushed, and pulled into the second datastore;
//   members — an owner and two read-write members each write DOCUMENTS documents and replicate at the same time
//             until each holds all three sets: documents per second per member and in all;
//   live    — two live replicas (replicateContinuously); 1,000 writes on one, each awaited on the other: the
//             latency from commit to arrival, p50 and p99 (target p99 ≤ 250 ms on loopback).
// The datastores use a fixed benchmark key; the client's profile is kept in WORK between the steps.
//
// Usage: StrongroomSyncBenchmark prepare URL REGISTRATION-TOKEN DOCUMENTS WORK LABEL
//        StrongroomSyncBenchmark pull|change WORK DOCUMENTS
//        StrongroomSyncBenchmark members|live URL REGISTRATION-TOKEN DOCUMENTS WORK
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomSync

let arguments = CommandLine.arguments
func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            "usage: StrongroomSyncBenchmark prepare URL TOKEN DOCUMENTS WORK LABEL | pull|change WORK DOCUMENTS\n".utf8
        )
    )
    exit(64)
}
guard arguments.count >= 4 else { usage() }
let mode = arguments[1]
let prepare = mode == "prepare"
let served = ["members", "live"].contains(mode)
guard
    prepare
        ? arguments.count == 7
        : served ? arguments.count == 6 : (arguments.count == 4 && ["pull", "change"].contains(mode))
else { usage() }
guard let documents = Int(arguments[prepare || served ? 4 : 3]), documents >= 100, documents <= 10_000_000 else {
    usage()
}
let work = URL(fileURLWithPath: arguments[prepare || served ? 5 : 2])
let profiles = work.appending(path: "profiles")
let clock = ContinuousClock()

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func rate(_ count: Int, _ duration: Duration) -> Double { Double(count) / max(seconds(duration), 1e-9) }

func body(_ index: Int, _ generation: Int = 0) -> [String: JSONValue] {
    [
        "name": .string("document \(index)"), "n": .number(Double(index)), "generation": .number(Double(generation)),
        "text": .string(String(repeating: "lorem ipsum ", count: 80)),
    ]
}

/// This process's peak resident set, in MiB.
func peakMiB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
}

func datastore(_ name: String) async throws -> Datastore {
    try await DatastoreManager(directory: work.appending(path: name))
        .datastore(
            named: "bench",
            keyProvider: SimpleKeyProvider(key: try EncryptionKey([UInt8](repeating: 7, count: 32)))
        )
}

func line(_ name: String, _ value: String, _ anchor: String) {
    print(
        "  \(name.padding(toLength: 34, withPad: " ", startingAt: 0)) "
            + "\(value.padding(toLength: 18, withPad: " ", startingAt: 0)) \(anchor)"
    )
}

let cdt = 685.0
switch mode {
case "prepare":
    guard let url = URL(string: arguments[2]) else { usage() }
    let configuration = try await Client.register(token: arguments[3], clientName: "sync-bench", apiURL: url)
    try configuration.save(profile: "bench", in: profiles)
    let source = try await datastore("source")
    var start = clock.now
    for first in stride(from: 0, to: documents, by: 10_000) {
        try await source.bulkWrite(
            (first..<min(first + 10_000, documents)).map { .create(id: "doc-\($0)", body: body($0)) }
        )
    }
    let floor = rate(documents, clock.now - start)
    try "\(floor)".write(to: work.appending(path: "floor"), atomically: true, encoding: .utf8)
    start = clock.now
    let pushed = try await Replicator(datastore: source, name: "bench", client: Client(configuration: configuration))
        .replicate(.push)
    let pushTime = clock.now - start
    precondition(pushed.revisionsPushed == documents, "pushed \(pushed.revisionsPushed)")
    await source.close()
    print(
        "Sync benchmark (\(arguments[6])): \(documents) documents of ~1 KiB, encrypted datastores, one local server, "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores shared by server, database and client"
    )
    line("local batched insert (the floor)", String(format: "%.0f docs/s", floor), "(anchor)")
    line(
        "push",
        String(format: "%.0f docs/s", rate(documents, pushTime)),
        String(
            format: "%.2f of the floor; %.1f s (target ≤ 30 s, ≥ 3,300 docs/s)",
            rate(documents, pushTime) / floor,
            seconds(pushTime)
        )
    )
case "pull":
    let configuration = try Client.Configuration(loadProfile: "bench", from: profiles)
    let floor = Double(try String(contentsOf: work.appending(path: "floor"), encoding: .utf8)) ?? 1
    let target = try await datastore("target")
    let start = clock.now
    let pulled = try await Replicator(datastore: target, name: "bench", client: Client(configuration: configuration))
        .replicate(.pull)
    let pullTime = clock.now - start
    precondition(pulled.revisionsApplied == documents, "applied \(pulled.revisionsApplied)")
    await target.close()
    line(
        "pull (a fresh process)",
        String(format: "%.0f docs/s", rate(documents, pullTime)),
        String(
            format: "%.2f of the floor; %.1f× CDTDatastore's 685 docs/s; %.1f s (target ≤ 30 s)",
            rate(documents, pullTime) / floor,
            rate(documents, pullTime) / cdt,
            seconds(pullTime)
        )
    )
    line(
        "pull process peak RSS",
        String(format: "%.0f MiB", peakMiB()),
        "(VmHWM of the whole process; target ≤ 100 MiB)"
    )
case "members":
    guard let url = URL(string: arguments[2]) else { usage() }
    var clients: [Client] = []
    for name in ["owner", "member-1", "member-2"] {
        clients.append(
            Client(configuration: try await Client.register(token: arguments[3], clientName: name, apiURL: url))
        )
    }
    let ownerStore = try await datastore("members-owner")
    let owner = Replicator(datastore: ownerStore, name: "team", client: clients[0])
    try await owner.replicate()
    let shared = try await owner.sharedDatastore()
    for member in clients.dropFirst() { try await owner.share(with: member.configuration.clientID, access: .readWrite) }
    var replicas = [(ownerStore, owner)]
    for (number, member) in clients.dropFirst().enumerated() {
        let store = try await datastore("members-\(number + 1)")
        replicas.append((store, Replicator(datastore: store, sharedDatastore: shared, client: member)))
    }
    for (number, (store, _)) in replicas.enumerated() {
        for first in stride(from: 0, to: documents, by: 10_000) {
            try await store.bulkWrite(
                (first..<min(first + 10_000, documents)).map { .create(id: "m\(number)-\($0)", body: body($0)) }
            )
        }
    }
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (store, replicator) in replicas {
            group.addTask {
                // Bounded: a run that stops converging says so instead of spinning.
                var passes = 0
                while try await store.documentCount() < 3 * documents, passes < 60 {
                    try await replicator.replicate()
                    passes += 1
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = clock.now - start
    print("Shared datastore: an owner and two read-write members, \(documents) documents each, replicating at once")
    var counts: [Int] = []
    for (store, _) in replicas { counts.append(try await store.documentCount()) }
    if counts.contains(where: { $0 < 3 * documents }) {
        print("  DID NOT CONVERGE after 60 passes each: documents per replica \(counts) of \(3 * documents)")
    }
    line(
        "3 members, each all 3 sets",
        String(format: "%.0f docs/s in all", rate(3 * documents, elapsed)),
        String(format: "%.0f docs/s per member pushed; %.1f s", rate(documents, elapsed), seconds(elapsed))
    )
    for (store, _) in replicas { await store.close() }
case "live":
    guard let url = URL(string: arguments[2]) else { usage() }
    let configuration = try await Client.register(token: arguments[3], clientName: "live-bench", apiURL: url)
    let (writer, reader) = (try await datastore("live-writer"), try await datastore("live-reader"))
    let replicators = [writer, reader].map {
        Replicator(datastore: $0, name: "live", client: Client(configuration: configuration))
    }
    let tasks = replicators.map { replicator in Task { try await replicator.replicateContinuously() } }
    let arrivals = reader.changeStream()
    var iterator = arrivals.makeAsyncIterator()
    var latencies: [Double] = []
    let writes = 1_000
    for number in 0..<writes {
        let start = clock.now
        _ = try await writer.createDocument(id: "live-\(number)", body: body(number))
        while let change = try await iterator.next() {
            if change.docID == "live-\(number)" { break }
        }
        latencies.append(seconds(clock.now - start) * 1_000)
    }
    for task in tasks { task.cancel() }
    latencies.sort()
    print("Live replication: \(writes) writes on one replica, each awaited on another (both replicateContinuously)")
    line(
        "write to arrival, p50 / p99",
        String(format: "%.0f / %.0f ms", latencies[writes / 2], latencies[writes * 99 / 100]),
        "(target p99 ≤ 250 ms on loopback)"
    )
    await writer.close()
    await reader.close()
default:
    let configuration = try Client.Configuration(loadProfile: "bench", from: profiles)
    let (source, target) = (try await datastore("source"), try await datastore("target"))
    let changed = try await source.documents(ids: (0..<100).map { "doc-\($0 * (documents / 100))" })
    try await source.bulkWrite(changed.map { .update(from: $0, body: body(0, 1)) })
    var start = clock.now
    let pushed = try await Replicator(datastore: source, name: "bench", client: Client(configuration: configuration))
        .replicate(.push)
    let pushTime = clock.now - start
    start = clock.now
    let pulled = try await Replicator(datastore: target, name: "bench", client: Client(configuration: configuration))
        .replicate(.pull)
    let pullTime = clock.now - start
    precondition(pushed.revisionsPushed == 100 && pulled.revisionsApplied == 100)
    line(
        "100 changed: push, then pull",
        String(format: "%.2f s + %.2f s", seconds(pushTime), seconds(pullTime)),
        "(target ≤ 1 s each)"
    )
    await source.close()
    await target.close()
}
