// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// What a key rotation did (``Client/rotateAccessKey(type:revoking:)``).
public struct KeyRotationReport: Sendable, Hashable {
    /// The type's new generation.
    public var generation: Int
    /// The readers the new key was sealed to, this client included.
    public var readers: Int
    /// Records whose field keys were sealed again under the new key.
    public var recordsRewrapped: Int
    /// Records left under an older key: fields that opened under neither key (written by another process under a
    /// generation this call never held), or records whose update kept conflicting. Zero after a complete rotation.
    public var recordsLeft: Int
    /// Whether the writer still has to re-wrap its records: an authorizer rotated the writer's key
    /// (``Client/revoke(onBehalfOf:type:readerID:rotate:)``) and only the writer changes its records. Until the
    /// writer's ``Client/finishKeyRotation(type:)`` runs, Strongroom readers read the older records through the links
    /// between generations; the official SDKs read only records written from the rotation on.
    public var rewrapPending: Bool

    /// A report.
    public init(generation: Int, readers: Int, recordsRewrapped: Int, recordsLeft: Int, rewrapPending: Bool = false) {
        (self.generation, self.readers, self.recordsRewrapped) = (generation, readers, recordsRewrapped)
        (self.recordsLeft, self.rewrapPending) = (recordsLeft, rewrapPending)
    }
}

extension Client {
    /// Records re-wrapped per page.
    static let rewrapPageSize = 1_000

    /// Makes a new generation of this client's access key for `type` (docs/design/Revocation.md): a fresh key,
    /// sealed to every reader that holds the current one except `revoked` (each public key proven by the key log,
    /// as for a share), committed by the server at once with the revocations; then every record of the type is
    /// re-wrapped, its fields' data keys sealed again under the new key (the ciphertexts stay), so a remaining
    /// reader — the official SDKs included — needs only the newest key, and a revoked one opens nothing written
    /// from now on.
    ///
    /// - Throws: ``ClientError/Code/notFound`` for a type this client has no key for; ``ClientError/Code/conflict``
    ///   when another rotation of the type kept winning the race;
    ///   ``ClientError/Code/badRequest`` (the server's 413) for a type with more readers than the server rotates at
    ///   once; the key log's verdicts when a reader's key is not proven.
    @discardableResult
    public func rotateAccessKey(
        type: String,
        revoking revoked: Set<UUID> = []
    ) async throws(ClientError)
        -> KeyRotationReport
    {
        let revokedIDs = Set(revoked.map { ClientID($0).description })
        guard let report = try await rotateKey(writerID: clientID, type: type, revoking: revokedIDs, onlyIfHeld: false)
        else { throw ClientError(.conflict, "the rotation of \(type) did not run") }  // never: onlyIfHeld is false
        return report
    }

    /// Makes a new generation of `writerID`'s key for `type`, as its writer (``rotateAccessKey(type:revoking:)``, the
    /// records re-wrapped) or as an authorizer of the type (``revoke(onBehalfOf:type:readerID:rotate:)``: only the
    /// writer re-wraps, so the report says ``KeyRotationReport/rewrapPending``). `onlyIfHeld`: nothing happens (nil)
    /// when none of `revoked` holds the current key.
    func rotateKey(
        writerID: String,
        type: String,
        revoking revokedIDs: Set<String>,
        onlyIfHeld: Bool
    ) async throws(ClientError)
        -> KeyRotationReport?
    {
        let asWriter = writerID == clientID
        let path = E3DBPath.accessKeyGeneration.render(writerID, writerID, type)
        for attempt in 1...3 {
            // The key the records are under now, from the server (another device may have rotated since this
            // process cached one): the link must seal the current generation's key, or the records under it would be
            // reachable from no newer key. A type this client never keyed has nothing to rotate (notFound), and none
            // is made for it here.
            await accessKeys.remove(writerID: writerID, userID: writerID, type: type)
            let (oldKey, oldGeneration) = try await readerKeyEntry(writerID: writerID, userID: writerID, type: type)
            let current: AccessKeyGenerationResponse
            do {
                current = try await authenticated(.GET, path, success: [200], as: AccessKeyGenerationResponse.self)
            } catch  where error.code == .notFound {
                // Every type has a generation (1 when never rotated): no answer means a server without rotation,
                // such as Tozny's hosted service. Never a silent fallback to the weaker revoke.
                throw ClientError(
                    .server,
                    "this server cannot rotate access keys (no /v2/storage/access_keys route); revoke with "
                        + "rotate: false (strongroom revoke --no-rotate) to revoke by access control only",
                    underlying: error
                )
            }
            guard oldGeneration == nil || oldGeneration == current.generation else {
                continue  // rotated between the two reads: read both again
            }
            let revoking = revokedIDs.intersection(current.readers)
            if onlyIfHeld, revoking.isEmpty { return nil }
            let newKey = AccessKey()
            var eaks: [ReaderAccessKey] = []
            let kept = current.readers.filter { !revokedIDs.contains($0) }
            // Every other reader's keys in one request per 1,000 (nil: a server without the route, asked per reader).
            let proven = try await sealingKeys(of: kept.filter { $0 != clientID })
            for reader in kept {
                let keys = proven?[reader.lowercased()]
                let publicKey: EncryptionPublicKey
                if reader == clientID {
                    publicKey = configuration.keys.encryptionKey.publicKey
                } else if let keys {
                    publicKey = keys.classical
                } else {
                    publicKey = try await self.publicKey(of: reader)
                }
                // A fresh encapsulation for each reader at each generation: a rotation heals post-quantum too.
                let sealed = try await seal(
                    newKey,
                    writerID: writerID,
                    type: type,
                    generation: current.generation + 1,
                    readerID: reader,
                    classical: publicKey,
                    proven: keys
                )
                eaks.append(ReaderAccessKey(readerID: reader, eak: sealed.eak, hybridEAK: sealed.hybridEAK))
            }
            // The old key sealed under the new one, kept by the server with the new generation: should this
            // process stop before every record is re-wrapped, any client of this writer finishes from it
            // (finishKeyRotation), since once the EAKs are replaced the old key is nowhere else.
            // The key log leaf of the new generation: the old key's successor tag and a commitment to the new key,
            // so every holder of either key can check which is current (docs/design/Revocation.md, "The key log").
            let request = AccessKeyRotationRequest(
                generation: current.generation + 1,
                eaks: eaks,
                revoke: revoking.sorted(),
                previous: newKey.sealingLink(to: oldKey).wireFormat,
                keyLog: try logLeaf(rotating: oldKey, to: newKey, writerID: writerID, type: type)
            )
            do {
                try await authenticated(
                    .POST,
                    E3DBPath.accessKeyRotation.render(writerID, writerID, type),
                    body: request,
                    success: [201]
                )
            } catch  where error.code == .conflict && attempt < 3 {
                continue  // another rotation or share came first: read the readers again
            }
            try await confirmRotation(writerID: writerID, type: type, to: newKey, generation: current.generation + 1)
            await accessKeys.store(
                newKey,
                generation: request.generation,
                checked: ContinuousClock.now,
                writerID: writerID,
                userID: writerID,
                type: type
            )
            // Records still under an older generation (a rotation before this one that was interrupted) too. A
            // replicated type's revisions are immutable and never re-wrapped: they stay under the generation they
            // were written in, which its readers reach through the links (`olderKeys`). Only the writer changes its
            // records: after an authorizer's rotation they wait for the writer's finishKeyRotation.
            var (rewrapped, left) = (0, 0)
            if asWriter, !ReplicatedType.isReplicated(type) {
                let chain = try await olderKeys(below: oldKey, writerID: clientID, userID: clientID, type: type)
                let older = [oldKey] + chain.keys
                (rewrapped, left) = try await rewrapRecords(
                    type: type,
                    from: older,
                    to: newKey,
                    generation: request.generation
                )
            }
            // The server logged the new generation (checked last: a server that did not still gets every record
            // re-wrapped first, and the error says the log lacks the generation, which readers then refuse).
            try await verifyGeneration(
                of: newKey,
                generation: request.generation,
                writerID: writerID,
                userID: writerID,
                type: type
            )
            return KeyRotationReport(
                generation: request.generation,
                readers: eaks.count,
                recordsRewrapped: rewrapped,
                recordsLeft: left,
                rewrapPending: !asWriter && !ReplicatedType.isReplicated(type)
            )
        }
        throw ClientError(.conflict, "the type's readers kept changing during the rotation")
    }

    /// The key log leaf recording a rotation of `writerID`'s `type` from `old` to `new`, in its wire form.
    private func logLeaf(
        rotating old: AccessKey,
        to new: AccessKey,
        writerID: String,
        type: String
    ) throws(ClientError) -> KeyRotationLogLeaf {
        let id = try uuid(writerID)
        do {
            return KeyRotationLogLeaf(try KeyGenerationLeaf(rotating: old, to: new, writer: id, user: id, type: type))
        } catch {
            throw ClientError(.badRequest, "a record type is at most 1,024 bytes", underlying: error)
        }
    }

    /// Finishes an interrupted rotation of `type` (docs/design/Revocation.md): re-wraps every record this client
    /// wrote that is still under an older generation's key, reaching the older keys through the links the server
    /// keeps between generations (each the previous key sealed under the next, opened here from the current key).
    /// Nothing is rotated; a type whose rotations all finished re-wraps nothing. Safe to run again at any time.
    ///
    /// - Throws: ``ClientError/Code/notFound`` for a type this client has no key for.
    @discardableResult
    public func finishKeyRotation(type: String) async throws(ClientError) -> KeyRotationReport {
        // The current key from the server, not a cache that may hold an older generation.
        await dropWriterKey(type: type)
        let (key, generation) = try await readerKeyEntry(writerID: clientID, userID: clientID, type: type)
        let path = E3DBPath.accessKeyGeneration.render(clientID, clientID, type)
        let current = try await authenticated(.GET, path, success: [200], as: AccessKeyGenerationResponse.self)
        // Never rotated: every record is under the one key there is. Replicated: never re-wrapped (above).
        guard current.generation > 1, !ReplicatedType.isReplicated(type) else {
            return KeyRotationReport(generation: 1, readers: current.readers.count, recordsRewrapped: 0, recordsLeft: 0)
        }
        // Every record is looked at even with no older key to hand: one the server withholds the link of counts
        // as left, not as done.
        let older = try await olderKeys(below: key, writerID: clientID, userID: clientID, type: type).keys
        let (rewrapped, left) = try await rewrapRecords(type: type, from: older, to: key, generation: generation)
        return KeyRotationReport(
            generation: current.generation,
            readers: current.readers.count,
            recordsRewrapped: rewrapped,
            recordsLeft: left
        )
    }

    /// Checks that the server kept the rotation: this client's own EAK of `writerID`'s `type`, fetched again (not
    /// from the cache), opens to `newKey`. A server that answered 201 and kept the old key (or serves it back) is
    /// caught here, before any record is re-wrapped under a key only this process holds.
    private func confirmRotation(
        writerID: String,
        type: String,
        to newKey: AccessKey,
        generation: Int
    ) async throws(ClientError) {
        let served = try await authenticated(
            .GET,
            E3DBPath.accessKey.render(writerID, writerID, clientID, type),
            success: [200],
            as: AccessKeyResponse.self
        )
        guard try await openAccessKey(served, writerID: writerID, type: type, generation: generation) == newKey else {
            throw ClientError(
                .tampered,
                "the server answered the key rotation of \(type) but serves another key for it: nothing was re-wrapped"
            )
        }
    }

    /// Seals the field keys of every record of `type` this client wrote under `newKey` where they are under one of
    /// `oldKeys`, a page at a time; returns how many were re-wrapped and how many are left. A page goes to the
    /// server in bulk (`POST …/{type}/rewrap`, one transaction, fenced by `generation`, `newKey`'s), in requests of
    /// at most ``rewrapBatchBytes``; a record that changed meanwhile is read again and re-wrapped alone, and a
    /// server without the bulk route gets one versioned update per record. A rotation after this one stops it, with
    /// what is left counted (the newer rotation re-wraps it through the links).
    func rewrapRecords(
        type: String,
        from oldKeys: [AccessKey],
        to newKey: AccessKey,
        generation: Int?
    ) async throws(ClientError)
        -> (rewrapped: Int, left: Int)
    {
        var (rewrapped, left, after) = (0, 0, Int64(0))
        var bulk = generation != nil  // the bulk route is fenced: a server that names no generation has none
        var superseded = false
        // The next page is read while this one is re-wrapped, and a page's bulk update runs while the next one is
        // sealed (the server answers the listing beside the bulk update): the pages are fixed by index, which a
        // re-wrap does not change. One bulk request at a time, so a page's outcome is known before the next is sent.
        var next = prefetchRewrapPage(type: type, after: after)
        var inFlight: BulkInFlight?
        defer {
            next.cancel()
            inFlight?.task.cancel()
        }
        /// Re-wraps `items` one versioned update at a time (each read in full first when listed without it).
        func rewrapAlone(_ items: [RewrapItem]) async throws(ClientError) {
            for item in items {
                var result = item.result
                if result == nil { result = try await searchResult(of: item.recordID) }
                guard let result else { continue }  // deleted meanwhile
                switch try await rewrap(result, from: oldKeys, to: newKey, fence: Self.fence(generation)) {
                case .rewrapped: rewrapped += 1
                case .current: break
                case .left: left += 1
                }
            }
        }
        /// Waits for the bulk update in flight and counts it; what changed meanwhile is re-wrapped alone.
        func settle() async throws(ClientError) {
            guard let batch = inFlight else { return }
            inFlight = nil
            do {
                let outcome: BulkOutcome = try await Self.value(of: batch.task)
                rewrapped += outcome.rewrapped
                try await rewrapAlone(outcome.again)
            } catch  where error.code == .notFound {
                bulk = false  // a server without the route: one update per record from now on
                try await rewrapAlone(batch.pending.map { $0.item })
            } catch  where error.isStaleKeyGeneration {
                superseded = true  // rotated again: the rest is counted, and left to the newer rotation
                left += batch.pending.count
            }
        }
        while true {
            let page = try await Self.value(of: next)
            let hasMore = !page.isEmpty && page.lastIndex > after
            if hasMore { next = prefetchRewrapPage(type: type, after: page.lastIndex) }
            var pending: [PendingRewrap] = []
            var files: [String] = []
            for item in page.items {
                if item.isFile {
                    files.append(item.recordID)  // its key is in the file's prologue: re-wrapped below
                    continue
                }
                switch Self.rewrapped(item.data, from: oldKeys, to: newKey) {
                case .current: break
                case .left: left += 1
                case .rewrapped(let data): pending.append(PendingRewrap(item: item, data: data))
                }
            }
            try await settle()
            if superseded {
                left += pending.count
            } else if bulk, let generation, !pending.isEmpty {
                let batch: [PendingRewrap] = pending
                let task = Task { () async throws -> BulkOutcome in
                    try await self.rewrapInBulk(batch, type: type, generation: generation)
                }
                inFlight = BulkInFlight(pending: batch, task: task)
            } else {
                try await rewrapAlone(pending.map { $0.item })
            }
            for file in files {
                guard !superseded, let generation else {
                    left += 1  // rotated again (the newer rotation takes it), or a server without file keys
                    continue
                }
                switch try await rewrapFile(file, from: oldKeys, to: newKey, generation: generation) {
                case .rewrapped: rewrapped += 1
                case .current: break
                case .left: left += 1
                case .superseded:
                    superseded = true
                    left += 1
                }
            }
            // A page may end early (the server bounds its bytes): only an empty one, or no progress, is the end.
            guard hasMore else {
                try await settle()
                return (rewrapped, left)
            }
            after = page.lastIndex
        }
    }

    /// The record `recordID` in full, as a search hit; nil when it is gone.
    private func searchResult(of recordID: String) async throws(ClientError) -> SearchResult? {
        let fresh: RecordResponse
        do {
            fresh = try await authenticated(
                .GET,
                E3DBPath.record.render(recordID),
                success: [200],
                as: RecordResponse.self
            )
        } catch  where error.code == .notFound {
            return nil
        }
        return SearchResult(
            meta: fresh.meta,
            recordData: fresh.data,
            accessKey: nil,
            recordSignature: fresh.recordSignature
        )
    }

    /// ``rewrapPage(type:after:)`` started now, to be awaited later.
    private func prefetchRewrapPage(type: String, after index: Int64) -> Task<RewrapPage, any Error> {
        Task { try await self.rewrapPage(type: type, after: index) }
    }

    /// What `task` returns, its error as the client error it is (a cancelled wait as ``ClientError/Code/cancelled``).
    private static func value<Value: Sendable>(of task: Task<Value, any Error>) async throws(ClientError) -> Value {
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.cancelled, "the re-wrap was cancelled", underlying: error)
        }
    }

    /// What one bulk update came to: how many records it re-wrapped, and those that changed meanwhile.
    struct BulkOutcome: Sendable {
        var rewrapped: Int
        var again: [RewrapItem]
    }

    /// A record and its fields sealed under the new key, to be sent.
    struct PendingRewrap: Sendable {
        var item: RewrapItem
        var data: [String: String]
    }

    /// The bulk update under way and what it carries.
    struct BulkInFlight {
        var pending: [PendingRewrap]
        var task: Task<BulkOutcome, any Error>
    }

    /// One record of a re-wrap page: its fields as stored, and its search hit when the page came from a search.
    struct RewrapItem: Sendable {
        var recordID: String
        var version: String
        var data: [String: String]
        var isFile: Bool
        var result: SearchResult?
    }

    /// A page of this client's records of a type.
    struct RewrapPage: Sendable {
        var items: [RewrapItem]
        var lastIndex: Int64
        /// Whether the server answered no record at all (a search page may hold only other writers' records).
        var isEmpty: Bool
    }

    /// One page of this client's records of `type` after `index`, with their data: through the re-wrap listing
    /// (`GET …/{type}/rewrap`, IDs, versions and fields only), or a search on a server without it.
    private func rewrapPage(type: String, after index: Int64) async throws(ClientError) -> RewrapPage {
        do {
            let listing = try await authenticated(
                .GET,
                E3DBPath.recordsRewrap.render(clientID, clientID, type)
                    + "?after=\(index)&count=\(Self.rewrapPageSize)",
                success: [200],
                as: RecordRewrapListing.self
            )
            return RewrapPage(
                items: listing.records.map {
                    RewrapItem(recordID: $0.recordID, version: $0.version, data: $0.data, isFile: $0.file, result: nil)
                },
                lastIndex: listing.lastIndex,
                isEmpty: listing.records.isEmpty
            )
        } catch  where error.code == .notFound {
            // A server without the listing: a search, the same records with their metadata.
        }
        let params = QueryParams(
            count: Self.rewrapPageSize,
            types: [type],
            writerIDs: [configuration.clientID],
            includesData: true,
            afterIndex: index
        )
        let page = try await authenticated(
            .POST,
            E3DBPath.search.render(),
            body: params.wire,
            success: [200],
            as: SearchResponse.self
        )
        return RewrapPage(
            items: page.results.filter { $0.meta.writerID.lowercased() == clientID }.map {
                RewrapItem(
                    recordID: $0.meta.recordID,
                    version: $0.meta.version,
                    data: $0.recordData ?? [:],
                    isFile: $0.meta.fileMeta != nil,
                    result: $0
                )
            },
            lastIndex: page.lastIndex,
            isEmpty: page.results.isEmpty
        )
    }

    /// The most field bytes one bulk re-wrap request carries (the server takes bodies of 16 MiB).
    static let rewrapBatchBytes = 4 << 20

    /// Sends `pending` in bulk, in requests of at most ``rewrapBatchBytes`` and the server's 1,000 records; returns
    /// how many were re-wrapped and the records that changed meanwhile (to be read again and re-wrapped alone).
    private func rewrapInBulk(
        _ pending: [PendingRewrap],
        type: String,
        generation: Int
    ) async throws(ClientError)
        -> BulkOutcome
    {
        var (rewrapped, again) = (0, [RewrapItem]())
        let sizes = pending.map { $0.data.values.reduce(0) { $0 + $1.utf8.count } }
        var start = pending.startIndex
        while start < pending.endIndex {
            var (end, bytes) = (start, 0)
            while end < pending.endIndex, end - start < 1_000,
                end == start || bytes + sizes[end] <= Self.rewrapBatchBytes
            {
                bytes += sizes[end]
                end += 1
            }
            let batch = pending[start..<end]
            let request = RecordRewrapRequest(
                generation: generation,
                records: batch.map { .init(recordID: $0.item.recordID, version: $0.item.version, data: $0.data) }
            )
            let answer = try await authenticated(
                .POST,
                E3DBPath.recordsRewrap.render(clientID, clientID, type),
                body: request,
                success: [200],
                as: RecordRewrapResponse.self
            )
            guard answer.results.count == batch.count else {
                throw ClientError(
                    .invalidResponse,
                    "the server answered a re-wrap of \(batch.count) records with \(answer.results.count) outcomes"
                )
            }
            for (item, result) in zip(batch, answer.results) {
                switch result.outcome {
                case RecordRewrapResponse.Result.rewrapped: rewrapped += 1
                case RecordRewrapResponse.Result.conflict:
                    var changed = item.item
                    changed.result = nil  // read again in full before it is re-wrapped alone
                    again.append(changed)
                default: break  // deleted meanwhile
                }
            }
            start = end
        }
        return BulkOutcome(rewrapped: rewrapped, again: again)
    }

    /// What re-wrapping a record comes to: nothing (under `newKey` already), left (a field under
    /// none of `oldKeys`, or not in E3DB's form), or its fields with every data key sealed under `newKey`.
    private enum Rewrapped { case current, left, rewrapped([String: String]) }

    private static func rewrapped(
        _ data: [String: String]?,
        from oldKeys: [AccessKey],
        to newKey: AccessKey
    ) -> Rewrapped {
        guard let data, !data.isEmpty else { return .current }
        var fields: [String: String] = [:]
        var changed = false
        for (name, wire) in data {
            guard let field = try? EncryptedField(wireFormat: wire) else { return .left }
            if FieldCipher.isSealed(field, under: newKey) {
                fields[name] = wire
                continue
            }
            // The first older key that opens it (the data key is opened once).
            guard let sealed = oldKeys.lazy.compactMap({ try? FieldCipher.rewrap(field, from: $0, to: newKey) }).first
            else { return .left }
            fields[name] = sealed.wireFormat
            changed = true
        }
        return changed ? .rewrapped(fields) : .current
    }

    private enum RewrapOutcome { case rewrapped, current, left }

    /// One record re-wrapped through a versioned update (read again once if it changed meanwhile).
    private func rewrap(
        _ result: SearchResult,
        from oldKeys: [AccessKey],
        to newKey: AccessKey,
        fence: [(String, String)]
    ) async throws(ClientError)
        -> RewrapOutcome
    {
        var result = result
        for attempt in 1...2 {
            let fields: [String: String]
            switch Self.rewrapped(result.recordData, from: oldKeys, to: newKey) {
            case .current: return .current
            case .left: return .left
            case .rewrapped(let data): fields = data
            }
            let meta = result.meta
            let request = RecordWriteRequest(
                meta: .init(writerID: meta.writerID, userID: meta.userID, type: meta.type, plain: meta.plain),
                data: fields,
                recordSignature: result.recordSignature
            )
            do {
                _ = try await answer(
                    .PUT,
                    E3DBPath.recordVersion.render(meta.recordID, meta.version),
                    headers: fence,
                    body: request,
                    success: [200]
                )
                return .rewrapped
            } catch  where error.isStaleKeyGeneration {
                return .left  // rotated again meanwhile: the newer rotation re-wraps it
            } catch  where error.code == .conflict && attempt == 1 {
                guard let fresh = try await searchResult(of: meta.recordID) else { return .current }  // deleted
                result = fresh
            }
        }
        return .left
    }
}
