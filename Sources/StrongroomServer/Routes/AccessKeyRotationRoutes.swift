// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// `/v2/storage/access_keys/{writer}/{user}/{type}[/rotate]`: a type's access-key generations (docs/design/Revocation.md).
/// The writer, or an authorizer of the type, reads the generation and rotates; the writer alone re-wraps; the writer
/// and the type's EAK holders read the links between generations. The official SDKs never call these.
struct AccessKeyRotationRoutes {
    let store: any SharingStore & ClientStore & RecordStore
    let authorization: Authorization
    let limits: ServerLimits
    let clock: ServerClock

    /// Its paths, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.get(RouterPath(.accessKeyGeneration), use: generation)
        routes.post(RouterPath(.accessKeyRotation), use: rotate)
        routes.post(RouterPath(.recordsRewrap), use: rewrap)
        routes.get(RouterPath(.recordsRewrap), use: rewrapListing)
        routes.get(RouterPath(.accessKeyLinks), use: links)
        return routes
    }

    private func scope(_ context: StrongroomRequestContext, caller: String) throws -> AccessKeyScope {
        let scope = try requireAccessKeyScope(context, limits)
        try authorization.requireWriter(writerID: scope.writerID, userID: scope.userID, caller: caller)
        return scope
    }

    /// The scope of a generation read or a rotation: the writer's, or an authorizer's of the type.
    private func rotatorScope(_ context: StrongroomRequestContext, caller: String) async throws -> AccessKeyScope {
        let scope = try requireAccessKeyScope(context, limits)
        try await authorization.requireRotator(of: scope, caller: caller)
        return scope
    }

    /// GET: the generation, the readers holding an EAK and the newest links between generations (at most
    /// ``ServerLimits/keyLinksServed``); 413 for a type with more than
    /// ``ServerLimits/readersPerRotation`` of them (it cannot be rotated in one step).
    func generation(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let scope = try await rotatorScope(context, caller: caller)
        let found = try await store.accessKeyGeneration(of: scope, limit: limits.readersPerRotation + 1)
        guard found.readers.count <= limits.readersPerRotation else {
            throw ServerError.tooLarge("the type has more than \(limits.readersPerRotation) readers")
        }
        let links = try await store.accessKeyLinks(of: scope, below: nil, limit: limits.keyLinksServed)
        return try json(
            AccessKeyGenerationResponse(generation: found.generation, readers: found.readers, links: links)
        )
    }

    /// GET `links?below=N`: the type's generation and its links below generation `N` (all without `below`), newest
    /// first, at most ``AccessKeyLinksResponse/maximumLinks``: for the writer and every holder of an EAK of the type
    /// (a member of a shared datastore reads the revisions of older generations through them); 404 for anyone else,
    /// as for a type that does not exist. A link opens only under the key of its generation, which a revoked reader
    /// never held.
    func links(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let scope = try requireAccessKeyScope(context, limits)
        var below: Int?
        if let text = request.uri.queryParameters.get("below") {
            guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let value = Int(text), (2...Int(Int32.max)).contains(value)
            else { throw ServerError.badRequest("below is a generation from 2 to \(Int32.max)") }
            below = value
        }
        if caller != scope.writerID, !(try await store.holdsAccessKey(of: scope, reader: caller)) {
            throw ServerError.notFound("no access key of that type for this client")
        }
        let generation = try await store.currentKeyGeneration(of: scope)
        let links = try await store.accessKeyLinks(of: scope, below: below, limit: AccessKeyLinksResponse.maximumLinks)
        return try json(AccessKeyLinksResponse(generation: generation, links: links))
    }

    /// POST: commits the rotation at once, or nothing: 409 for a stale generation or a reader set that does not
    /// match; 400 for malformed EAKs or IDs; 413 beyond ``ServerLimits/readersPerRotation``; 403 for an authorizer
    /// revoking the writer, itself or another authorizer.
    func rotate(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let scope = try await rotatorScope(context, caller: caller)
        let body = try await decodeBody(AccessKeyRotationRequest.self, request, context)
        guard body.eaks.count <= limits.readersPerRotation, body.revoke.count <= limits.readersPerRotation else {
            throw ServerError.tooLarge("a rotation seals to at most \(limits.readersPerRotation) readers")
        }
        guard (2...Int(Int32.max)).contains(body.generation) else {
            throw ServerError.badRequest("generation is a number from 2 to \(Int32.max)")
        }
        var eaks: [String: String] = [:]
        var hybridEAKs: [String: String] = [:]
        for entry in body.eaks {
            guard let reader = ClientID(entry.readerID)?.description, eaks[reader] == nil else {
                throw ServerError.badRequest("eaks name each reader once, by client ID")
            }
            try AccessKeyRoutes.requireEAKs(entry.eak, hybrid: entry.hybridEAK)
            eaks[reader] = entry.eak
            hybridEAKs[reader] = entry.hybridEAK
        }
        let revoke = try Set(
            body.revoke.map { text in
                guard let reader = ClientID(text)?.description else {
                    throw ServerError.badRequest("revoke names readers by client ID")
                }
                return reader
            }
        )
        guard eaks[scope.writerID] != nil, !revoke.contains(scope.writerID), revoke.isDisjoint(with: eaks.keys) else {
            throw ServerError.badRequest("the writer keeps its own key; a revoked reader gets none")
        }
        try await authorization.requireRevocable(revoke, of: scope, caller: caller)
        // The link has an EAK's wire form (a 48-byte box and a 24-byte nonce); the server cannot open it.
        if let previous = body.previous { try AccessKeyRoutes.requireEAK(previous, named: "previous") }
        var rotation = AccessKeyRotation(
            scope: scope,
            generation: body.generation,
            eaks: eaks,
            revoke: revoke,
            authorizerID: caller,
            previous: body.previous,
            logLeaf: try body.keyLog.map(Self.logLeaf)
        )
        rotation.hybridEAKs = hybridEAKs
        switch try await store.rotateAccessKey(rotation, logAt: clock.wallTimestamp) {
        case .rotated:
            return empty(.created)
        case .staleGeneration(let current):
            throw ServerError.conflict("the type is at generation \(current): read it again and rotate from there")
        case .readersDiffer:
            throw ServerError.conflict("the readers holding the key changed: read them again and rotate from there")
        }
    }

    /// The key log leaf of a rotation: a 16-byte tag and a 32-byte commitment in standard base64 (the server cannot
    /// check them further: both are keyed by access keys it never sees).
    static func logLeaf(_ parts: KeyRotationLogLeaf) throws -> KeyGenerationLeaf {
        guard parts.successorTag.utf8.count <= 24, parts.commitment.utf8.count <= 44,
            let tag = Data(base64Encoded: parts.successorTag), tag.count == 16,
            let bytes = Data(base64Encoded: parts.commitment), let commitment = KeyLogCommitment(bytes: bytes)
        else {
            throw ServerError.badRequest("key_log is a 16-byte successor_tag and a 32-byte commitment, in base64")
        }
        let id = tag.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        return KeyGenerationLeaf(successorTag: id, commitment: commitment)
    }

    /// GET …/rewrap?after=N&count=M: the writer's committed records of the type after index N (0 without it), in
    /// index order, at most M (1 to ``ServerLimits/recordsPerRewrap``, that many without it) and at most
    /// ``ServerLimits/searchResponseDataBytes`` of fields past the first: each one's ID, version, stored fields and
    /// whether it is a file (``RewrapListing``). What a re-wrap reads, without a search's metadata and inline keys.
    func rewrapListing(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let scope = try scope(context, caller: caller)
        func number(_ name: String, in range: ClosedRange<Int64>, default value: Int64) throws -> Int64 {
            guard let text = request.uri.queryParameters.get(name) else { return value }
            guard text.utf8.count <= 20, let parsed = Int64(text), range.contains(parsed) else {
                throw ServerError.badRequest("\(name) is a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return parsed
        }
        let after = try number("after", in: 0...Int64.max, default: 0)
        let count = try number("count", in: 1...Int64(limits.recordsPerRewrap), default: Int64(limits.recordsPerRewrap))
        let entries = try await store.rewrapListing(
            of: scope,
            after: after,
            limit: Int(count),
            bytes: limits.searchResponseDataBytes
        )
        return jsonText(RewrapListing.jsonText(entries, after: after))
    }

    /// POST …/rewrap: a page of the writer's records re-wrapped under the current generation, in one transaction
    /// (docs/design/Revocation.md, "The bulk re-wrap"). 409 `stale_key_generation` for another generation; 400 for
    /// a record named twice, a field that is not E3DB's `EDK.EDKN.EF.EFN`, or data that differs in more than the
    /// wraps (nothing stored); 413 beyond ``ServerLimits/recordsPerRewrap``. Each record's outcome otherwise:
    /// re-wrapped (with its new version), `conflict` or `not_found`. Replicated types' revisions are immutable: 400.
    func rewrap(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let scope = try scope(context, caller: caller)
        guard !ReplicatedRecordRules.isReplicated(scope.type) else {
            throw ServerError.badRequest("a replicated datastore's revisions are not re-wrapped in place")
        }
        let body = try await decodeBody(RecordRewrapRequest.self, request, context)
        guard body.records.count <= limits.recordsPerRewrap else {
            throw ServerError.tooLarge("a re-wrap takes at most \(limits.recordsPerRewrap) records")
        }
        guard KeyGeneration.range.contains(body.generation) else {
            throw ServerError.badRequest("generation is a number from 1 to \(Int32.max)")
        }
        var seen = Set<String>()
        var rewraps: [RecordRewrap] = []
        rewraps.reserveCapacity(body.records.count)
        for record in body.records {
            guard let id = RecordID(record.recordID)?.description, seen.insert(id).inserted else {
                throw ServerError.badRequest("records name each record once, by ID")
            }
            guard !record.data.isEmpty,
                record.data.values.allSatisfy({ (try? EncryptedField(wireFormat: $0)) != nil })
            else {
                throw ServerError.badRequest("a re-wrapped record's fields are EDK.EDKN.EF.EFN, at least one")
            }
            rewraps.append(
                RecordRewrap(
                    recordID: id,
                    version: record.version,
                    data: record.data,
                    newVersion: SecureRandom.uuid().uuidString.lowercased()
                )
            )
        }
        try await KeyGenerationFence(store: store).require(body.generation, of: scope)
        let outcomes = try await store.rewrapRecords(rewraps, of: scope, at: clock.timestamp())
        guard !outcomes.contains(.changed) else {
            throw ServerError.badRequest("a re-wrap changes only the fields' data-key wraps: nothing was stored")
        }
        let results = zip(rewraps, outcomes).map { rewrap, outcome in
            switch outcome {
            case .rewrapped:
                RecordRewrapResponse.Result(
                    recordID: rewrap.recordID,
                    outcome: RecordRewrapResponse.Result.rewrapped,
                    version: rewrap.newVersion
                )
            case .conflict:
                RecordRewrapResponse.Result(recordID: rewrap.recordID, outcome: RecordRewrapResponse.Result.conflict)
            case .notFound, .changed:
                RecordRewrapResponse.Result(recordID: rewrap.recordID, outcome: RecordRewrapResponse.Result.notFound)
            }
        }
        return try json(RecordRewrapResponse(results: results))
    }
}
