// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
package import StrongroomCore
package import StrongroomCrypto

/// A key log witness (C2SP `tlog-witness`): for each log it trusts, it keeps the newest checkpoint it cosigned and
/// cosigns a new one only when a consistency proof shows that it extends that one (C2SP `tlog-cosignature` v1). A log
/// cannot then show two clients two different histories both cosigned by the same witness.
///
/// Its key (`witness.key`, a 32-byte Ed25519 seed, mode 0600) and its state (`witness-state.json`, the size and root
/// per origin) live in its directory; the state is written (atomically, synced) before a cosignature is returned,
/// and the check and the write happen in one step of the actor, so two submissions cannot roll each other back.
package actor KeyLogWitness {
    /// What `add-checkpoint` answers.
    package struct Answer: Sendable, Hashable {
        /// The HTTP status.
        package var status: Int
        /// The body: cosignature lines, the witness's size (409), or a reason.
        package var body: String
        /// The content type.
        package var contentType: String
    }

    /// The largest state file read (about 40,000 logs).
    static let maximumStateBytes = 8 << 20
    /// The largest request body read.
    package static let maximumRequestBytes = SignedNote.maximumBytes + 64 * 64

    /// Signs cosignatures.
    package nonisolated let cosigner: Cosigner
    private let logs: [String: NoteVerifierKey]
    private let statePath: String
    private let clock: any WallClock
    private var state: [String: StoredCheckpoint]

    struct StoredCheckpoint: Codable, Hashable {
        var size: UInt64
        var root: String
    }

    /// A witness over `directory` (created 0700), trusting `logKeys` (one per origin: a key's name is its log's
    /// origin), named `name` (default `strongroom-witness/` and the first 8 bytes of its public key in hex).
    package init(directory: String, name: String?, logKeys: [NoteVerifierKey], clock: any WallClock) throws {
        _ = try PrivateFiles.prepareFolder(directory, naming: "the witness directory \(directory)")
        let seed = try Self.key(in: directory)
        let privateKey = try SigningPrivateKey(seed: SecureBytes(copying: seed))
        let defaultName =
            "strongroom-witness/"
            + privateKey.publicKey.rawRepresentation.prefix(8).map { String(format: "%02x", $0) }
            .joined()
        cosigner = try Cosigner(name: name ?? defaultName, privateKey: privateKey)
        logs = Dictionary(logKeys.map { ($0.name, $0) }) { first, _ in first }
        statePath = directory + "/witness-state.json"
        self.clock = clock
        if let handle = FileHandle(forReadingAtPath: statePath) {
            defer { try? handle.close() }  // read-only: closing loses nothing
            // A state is a line per log; anything near the cap is not one this witness wrote.
            let data = try handle.read(upToCount: Self.maximumStateBytes + 1) ?? Data()
            guard data.count <= Self.maximumStateBytes else {
                throw PrivateFiles.Failure(
                    kind: .unusable,
                    message: "\(statePath) is larger than a witness's state can be"
                )
            }
            state = try JSONDecoder().decode([String: StoredCheckpoint].self, from: data)
        } else {
            state = [:]
        }
    }

    /// The cosigner key of the witness whose directory is `directory`, without creating anything; nil when it has
    /// no key yet.
    package static func existingKey(in directory: String, name: String?) throws -> CosignerKey? {
        let path = directory + "/witness.key"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let privateKey = try SigningPrivateKey(seed: SecureBytes(copying: try key(in: directory)))
        let defaultName =
            "strongroom-witness/"
            + privateKey.publicKey.rawRepresentation.prefix(8).map { String(format: "%02x", $0) }
            .joined()
        return try Cosigner(name: name ?? defaultName, privateKey: privateKey).key
    }

    /// `POST /add-checkpoint` with `body`.
    package func addCheckpoint(_ body: String) async -> Answer {
        let request: (old: UInt64, proof: [MerkleHash], note: SignedNote)
        do {
            request = try Self.parse(body)
        } catch {
            return Answer(status: 400, body: "\(error)\n", contentType: "text/plain")
        }
        let note = request.note
        let checkpoint: LogCheckpoint
        do {
            checkpoint = try LogCheckpoint(text: note.text)
        } catch {
            return Answer(status: 400, body: "the note is not a checkpoint\n", contentType: "text/plain")
        }
        guard let logKey = logs[checkpoint.origin] else {
            return Answer(status: 404, body: "unknown log \(checkpoint.origin)\n", contentType: "text/plain")
        }
        do {
            _ = try note.verified(by: [logKey])
        } catch {
            return Answer(
                status: 403,
                body: "the checkpoint is not signed by the log's key\n",
                contentType: "text/plain"
            )
        }
        guard request.old <= checkpoint.size else {
            return Answer(status: 400, body: "old is larger than the checkpoint's size\n", contentType: "text/plain")
        }
        let known = state[checkpoint.origin]
        guard request.old == known?.size ?? 0 else {
            return Answer(status: 409, body: "\(known?.size ?? 0)\n", contentType: "text/x.tlog.size")
        }
        if let known {
            guard let oldRoot = Data(base64Encoded: known.root).flatMap({ MerkleHash(bytes: $0) }) else {
                return Answer(status: 500, body: "the witness's state is damaged\n", contentType: "text/plain")
            }
            if known.size == checkpoint.size, oldRoot != checkpoint.root {
                return Answer(status: 409, body: "\(known.size)\n", contentType: "text/x.tlog.size")
            }
            do {
                try MerkleProof.verifyConsistency(
                    oldSize: known.size,
                    newSize: checkpoint.size,
                    oldRoot: oldRoot,
                    newRoot: checkpoint.root,
                    proof: request.proof
                )
            } catch {
                return Answer(status: 422, body: "the consistency proof does not verify\n", contentType: "text/plain")
            }
        } else if !request.proof.isEmpty {
            return Answer(status: 422, body: "a proof from size 0 is empty\n", contentType: "text/plain")
        }
        let updated = StoredCheckpoint(size: checkpoint.size, root: Data(checkpoint.root.bytes).base64EncodedString())
        // The checkpoint the witness holds already (a replay) is cosigned again without a write: only a newer one
        // changes the state file, so unauthenticated replays cost no durable writes.
        if updated != known {
            var next = state
            next[checkpoint.origin] = updated
            do {
                let data = try JSONEncoder().encode(next)
                let path = statePath
                try await BlockingExecutor.shared.run { _ in try AtomicFile.write(data, to: path) }
            } catch {
                return Answer(status: 500, body: "the witness's state could not be saved\n", contentType: "text/plain")
            }
            state = next
        }
        let time = UInt64(max(0, clock.now.timeIntervalSince1970.rounded(.down)))
        do {
            let signature = try cosigner.cosignature(on: note.text, time: time)
            let line =
                try SignedNote(text: note.text, signatures: [signature]).encoded
                .split(separator: "\n", omittingEmptySubsequences: false).dropLast().last.map(String.init) ?? ""
            return Answer(status: 200, body: line + "\n", contentType: "text/plain")
        } catch {
            return Answer(status: 500, body: "the cosignature could not be made\n", contentType: "text/plain")
        }
    }

    /// `old <size>`, up to 63 base64 hash lines, an empty line, then a signed note.
    package static func parse(
        _ body: String
    ) throws(CryptoError)
        -> (old: UInt64, proof: [MerkleHash], note: SignedNote)
    {
        guard body.utf8.count <= maximumRequestBytes, let blank = body.range(of: "\n\n") else {
            throw CryptoError(.invalidFormat, "an add-checkpoint request is an old size, a proof, a blank line, a note")
        }
        let head = body[..<blank.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = head.first, first.hasPrefix("old "), head.count <= 64 else {
            throw CryptoError(.invalidFormat, "an add-checkpoint request starts with `old <size>` and has ≤ 63 hashes")
        }
        let sizeText = first.dropFirst(4)
        guard !sizeText.isEmpty, sizeText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            sizeText == "0" || !sizeText.hasPrefix("0"), let old = UInt64(sizeText), old <= MerkleProof.maximumTreeSize
        else {
            throw CryptoError(.invalidFormat, "the old size is a decimal number without leading zeros")
        }
        var proof: [MerkleHash] = []
        for line in head.dropFirst() {
            guard let data = Data(base64Encoded: String(line)), let hash = MerkleHash(bytes: data) else {
                throw CryptoError(.invalidFormat, "a proof line is the base64 of a 32-byte hash")
            }
            proof.append(hash)
        }
        let note = try SignedNote(parsing: String(body[blank.upperBound...]))
        return (old, proof, note)
    }

    /// The 32-byte seed in `directory/witness.key`, created once (mode 0600).
    private static func key(in directory: String) throws -> Data {
        try PrivateFiles.secretKey(at: directory + "/witness.key", consequence: "the witness gets a new key")
    }

    /// The witness's cosigner for `seed` under `name`, or its default name.
    private static func cosigner(seed: Data, name: String?) throws -> Cosigner {
        let privateKey = try SigningPrivateKey(seed: SecureBytes(copying: seed))
        let prefix = Data(privateKey.publicKey.rawRepresentation.prefix(8)).hexString
        return try Cosigner(name: name ?? "strongroom-witness/" + prefix, privateKey: privateKey)
    }
}
