// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomTesting
import Testing

/// `strongroom revoke` killed at seeded crash points (``CrashPoints``, socket writes counted too, so the kill lands
/// between two of its requests: before the rotation's commit, between the commit and the check of the new key, or
/// anywhere in the re-wrap). Whatever the point, running the same command again finishes the revoke: the remaining
/// reader reads every record with the newest key alone, the revoked one reads none, and a third run has nothing left.
@Suite struct CLIRevokeCrashTests {
    static let records = 12

    @Test("a revoke killed at any request is finished by running it again")
    func killedRevoke() async throws {
        try await withTemporaryDirectory { folder in
            let server = try await ServerProcess(
                arguments: ["--data-directory", folder.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            try FileManager.default.createDirectory(
                at: folder.appending(path: "tmp"),
                withIntermediateDirectories: true
            )
            let cli = CLISessionTests.CLI(url: server.baseURL, home: folder)
            _ = try await cli.ok(["register", "--token", "tok", "--url", cli.url])
            let bob = try await cli.ok(["register", "--token", "tok", "--url", cli.url], profile: "bob")
            let carol = try await cli.ok(["register", "--token", "tok", "--url", cli.url], profile: "carol")
            let profiles = folder.appending(path: "profiles")
            func client(_ profile: String) throws -> Client {
                Client(configuration: try Client.Configuration(loadProfile: profile, from: profiles))
            }
            let alice = try client("alice")
            let carolBefore = try client("carol")

            /// A type of its own for each run: records written, shared with bob and carol, read by carol.
            func prepare(_ type: String) async throws -> [UUID] {
                var ids: [UUID] = []
                for index in 0..<Self.records {
                    ids.append(
                        try await alice.write(type: type, data: ["n": "\(index)", "secret": "s\(index)"]).meta.recordID
                    )
                }
                for reader in [bob, carol] {
                    try await alice.share(type: type, readerID: try #require(UUID(uuidString: reader)))
                }
                _ = try await carolBefore.read(recordID: ids[0])  // carol holds generation 1's key
                return ids
            }
            func revoke(_ type: String) -> [String] { ["revoke", "--type", type, "--reader", carol] }
            let library = try await CrashPoints.library()

            // Counting: a whole revoke, uninterrupted.
            _ = try await prepare("counted")
            let countFile = folder.appending(path: "operations")
            let counted = try await cli.run(
                revoke("counted"),
                environment: CrashPoints.environment(
                    library: library,
                    crashAt: nil,
                    countFile: countFile,
                    sockets: true
                )
            )
            try #require(counted.status == 0, "\(counted.output)")
            #expect(counted.output.contains("\(Self.records) records re-wrapped)"), "\(counted.output)")
            let total = try CrashPoints.count(in: countFile)
            let points = CrashPoints.points(total: total, workload: "revoke")
            print("crash points: revoke: \(total) operations, seed \(CrashPoints.seed), killed before \(points)")

            for point in points {
                let crash = CrashPoints.describe(workload: "revoke", point: point, total: total)
                let type = "crash-\(point)"
                let ids = try await prepare(type)
                let killed = try await cli.run(
                    revoke(type),
                    environment: CrashPoints.environment(library: library, crashAt: point, sockets: true)
                )
                #expect(killed.signalled || killed.status == 0, "\(crash): \(killed.output)")
                let again = try await cli.ok(revoke(type))
                print("crash points: \(crash): \(killed.signalled ? "killed" : "finished first"); again: \(again)")
                #expect(!again.contains("left under"), "\(crash): \(again)")
                let nothing = "nothing to revoke: \(type) was not shared with \(carol)"
                #expect(try await cli.ok(revoke(type)) == nothing, "\(crash): a third run has nothing left")

                // Bob, with no key cached, reads everything with the newest key alone; carol reads nothing.
                let bobNow = try client("bob")
                for (index, id) in ids.enumerated() {
                    #expect(try await bobNow.read(recordID: id).data["secret"] == "s\(index)", "\(crash)")
                    await #expect(throws: ClientError.self, "\(crash)") { _ = try await carolBefore.read(recordID: id) }
                }
                let later = try await alice.write(type: type, data: ["secret": "after"]).meta.recordID
                #expect(try await bobNow.read(recordID: later).data["secret"] == "after", "\(crash)")
                await #expect(throws: ClientError.self, "\(crash)") { _ = try await carolBefore.read(recordID: later) }
            }
        }
    }
}
