// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomClientShield
import StrongroomCore
import StrongroomKeychain
import StrongroomShield
import StrongroomTesting
import Synchronization
import Testing

/// The encrypted copies `writeFile` and `readFile` stage are gone afterwards: on success, on failure and on
/// cancellation (e3db-swift leaves that to the system's temporary folder).
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct ClientFileStagingTests {
    /// Cancels a task the moment a progress report of the wanted stage arrives (even if it arrives before the task
    /// is known).
    final class Canceller: Sendable {
        private let state = Mutex<(task: Task<Void, Never>?, requested: Bool)>((nil, false))

        func set(_ task: Task<Void, Never>) {
            let cancelNow = state.withLock { state in
                state.task = task
                return state.requested
            }
            if cancelNow { task.cancel() }
        }

        func cancel() {
            let task = state.withLock { state in
                state.requested = true
                return state.task
            }
            task?.cancel()
        }
    }

    /// Runs `body` with a client staging its copies in a folder of its own, and that folder.
    private func withStagingClient(
        _ body: (Client, URL, URL) async throws -> Void
    ) async throws {
        try await ClientTestServer.run(engine: .sqlite) { url in
            try await withTemporaryDirectory { directory in
                let staging = directory.appending(path: "staging")
                try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
                let configuration = try await Client.register(
                    token: ClientTestServer.registrationToken,
                    clientName: "staging",
                    apiURL: url,
                    options: ClientTestServer.unhurried
                )
                var options = ClientTestServer.unhurried
                options.stagingDirectory = staging
                let client = try Client(configuration: configuration, options: options)
                try await body(client, directory, staging)
            }
        }
    }

    /// Runs `operation` in a task cancelled at the first progress report `stage` matches; the error code it ended
    /// with, or nil when it succeeded.
    private func cancelled(
        when stage: @escaping @Sendable (FileTransferProgress) -> Bool,
        _ operation:
            @escaping @Sendable (@escaping @Sendable (FileTransferProgress) -> Void) async throws(ClientError) -> Void
    ) async -> ClientError.Code? {
        let canceller = Canceller()
        let outcome = Mutex<ClientError.Code?>(nil)
        let task = Task {
            do throws(ClientError) {
                try await operation { progress in if stage(progress) { canceller.cancel() } }
            } catch {
                outcome.withLock { $0 = error.code }
            }
        }
        canceller.set(task)
        await task.value
        return outcome.withLock { $0 }
    }

    private func staged(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
    }

    @Test("success and failure: nothing left in the staging folder, no partial destination")
    func successAndFailure() async throws {
        try await withStagingClient { client, directory, staging in
            let source = directory.appending(path: "notes.txt")
            try Data(repeating: 0x41, count: 200_000).write(to: source)
            let info = try await client.writeFile(type: "notes", fileURL: source)
            #expect(try staged(staging).isEmpty)
            try await client.readFile(recordID: info.meta.recordID, destination: directory.appending(path: "copy"))
            #expect(try staged(staging).isEmpty)

            // The server refuses the upload's metadata after the copy was encrypted and staged.
            let refused = await #expect(throws: ClientError.self) {
                let oversized = ["note": String(repeating: "x", count: 70_000)]  // the server's plain limit is 64 KiB
                return try await client.writeFile(type: "notes", fileURL: source, plain: oversized)
            }
            #expect(refused?.code == .badRequest)
            #expect(try staged(staging).isEmpty)

            // The download is staged and checked, then decrypting into a missing folder fails.
            let missing = directory.appending(path: "no-such-folder/copy")
            await #expect(throws: ClientError.self) {
                try await client.readFile(recordID: info.meta.recordID, destination: missing)
            }
            #expect(try staged(staging).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: missing.path))
        }
    }

    @Test(
        "cancelled while uploading or downloading: a cancelled error, nothing staged left, no destination",
        .timeLimit(.minutes(10))
    )
    func cancellation() async throws {
        try await withStagingClient { client, directory, staging in
            let source = directory.appending(path: "big.bin")
            try Data(repeating: 0x5A, count: 24 << 20).write(to: source)

            let uploadOutcome = await cancelled(when: { if case .uploading = $0 { true } else { false } }) {
                progress throws(ClientError) in
                _ = try await client.writeFile(type: "big", fileURL: source, progress: progress)
            }
            #expect(uploadOutcome == .cancelled)
            #expect(try staged(staging).isEmpty)

            let info = try await client.writeFile(type: "big", fileURL: source)
            let destination = directory.appending(path: "copy.bin")
            let readOutcome = await cancelled(when: { if case .downloading = $0 { true } else { false } }) {
                progress throws(ClientError) in
                try await client.readFile(recordID: info.meta.recordID, destination: destination, progress: progress)
            }
            #expect(readOutcome == .cancelled)
            #expect(try staged(staging).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }

    @Test("readFile(protection: .protected): stored encrypted at rest under the keychain key, no plaintext on disk")
    func protectedDownload() async throws {
        try await withStagingClient { client, directory, staging in
            let marker = Data("PROTECTED-DOWNLOAD-MARKER ".utf8)
            var plain = Data()
            for _ in 0..<20_000 { plain.append(marker) }
            let source = directory.appending(path: "report.txt")
            try plain.write(to: source)
            let info = try await client.writeFile(type: "reports", fileURL: source)
            let protector = try FileProtector(keychain: Keychain.inMemory(), key: "downloads")
            let stored = directory.appending(path: "report.protected")
            try await client.readFile(
                recordID: info.meta.recordID,
                destination: stored,
                protection: .protected(protector)
            )
            #expect(try Data(contentsOf: stored).range(of: marker) == nil)
            #expect(try staged(staging).isEmpty)
            let back = directory.appending(path: "report.back")
            try await protector.unprotect(contentsOf: stored, to: back)
            #expect(try Data(contentsOf: back) == plain)
            // Like any readFile, an existing destination is refused and left alone.
            await #expect(throws: ClientError.self) {
                try await client.readFile(
                    recordID: info.meta.recordID,
                    destination: stored,
                    protection: .protected(protector)
                )
            }
        }
    }
}
