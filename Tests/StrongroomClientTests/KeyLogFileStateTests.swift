// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

@testable import StrongroomClient

/// The file a profile's key log state lives in, and its journal of checkpoints: a checkpoint-only move is one appended
/// line, read back as the newest; a torn line is skipped; a durable save folds the journal in; a large state loads.
@Suite struct KeyLogFileStateTests {
    static func signer() throws -> NoteSigner {
        try NoteSigner(
            name: "test.log/journal",
            key: SigningPrivateKey(seed: SecureBytes(copying: [UInt8](repeating: 7, count: 32)))
        )
    }

    static func note(size: UInt64) throws -> String {
        let signer = try signer()
        let checkpoint = LogCheckpoint(
            origin: signer.verifierKey.name,
            size: size,
            root: MerkleHash.leaf(Data("root \(size)".utf8)),
            extensions: ["timestamp 1"]
        )
        return try signer.sign(checkpoint.text).encoded
    }

    static func state(_ checkpoint: String?, leaves: Int = 0) throws -> KeyLogState {
        var state = KeyLogState(verifierKey: try signer().verifierKey.description, checkpoint: checkpoint)
        for index in 0..<leaves { state.keyLeaves[UUID().uuidString.lowercased() + "/\(index)"] = UInt64(index) }
        return state
    }

    @Test("moves go to the journal and read back as the newest; a torn line is skipped; a durable save folds them in")
    func journal() async throws {
        try await withTemporaryDirectory { folder in
            let store = KeyLogFileState(url: folder.appending(path: "keylog.json"))
            try await store.save(try Self.state(try Self.note(size: 5)))
            let stateBytes = try Data(contentsOf: store.url)
            for size in [6, 9, 12] as [UInt64] {
                try await store.save(try Self.state(try Self.note(size: size)), durably: false)
            }
            #expect(try Data(contentsOf: store.url) == stateBytes, "the state file is not rewritten for a move")
            #expect(try await store.load()?.checkpoint == (try Self.note(size: 12)))
            // A killed writer's torn line, and an older line after a newer one: the newest whole line wins.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store.journalPath))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data((Base64URL.encode(Data(try Self.note(size: 7).utf8)) + "\n").utf8))
            try handle.write(contentsOf: Data(Base64URL.encode(Data(try Self.note(size: 40).utf8)).prefix(30).utf8))
            try handle.close()
            #expect(try await store.load()?.checkpoint == (try Self.note(size: 12)))
            // A durable save (a pin, a contact, a key-leaf floor) rewrites the state and empties the journal.
            try await store.save(try Self.state(try Self.note(size: 13)))
            #expect(!FileManager.default.fileExists(atPath: store.journalPath))
            #expect(try await store.load()?.checkpoint == (try Self.note(size: 13)))
            let permissions = try FileManager.default.attributesOfItem(atPath: store.url.path)[.posixPermissions]
            #expect(permissions as? Int == 0o600)
        }
    }

    @Test("a state of 5,000 key leaves (past the 64 KiB an earlier build read) loads whole")
    func largeState() async throws {
        try await withTemporaryDirectory { folder in
            let store = KeyLogFileState(url: folder.appending(path: "keylog.json"))
            try await store.save(try Self.state(try Self.note(size: 3), leaves: 5_000))
            #expect(try Data(contentsOf: store.url).count > 64 << 10)
            #expect(try await store.load()?.keyLeaves.count == 5_000)
        }
    }
}
