// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomWire

extension Client {
    /// One page of records matching `params`, decrypted.
    ///
    /// - Throws: ``ClientError/Code/badRequest`` for invalid parameters, ``ClientError/Code/tampered`` when a
    ///   record does not decrypt.
    public func query(_ params: QueryParams) async throws(ClientError) -> QueryResult {
        try await search(params, requiringSignatures: false)
    }

    /// One page of `params`, decrypted; with `requiringSignatures`, every record must carry a `rec_sig` that
    /// verifies under its writer's signing key.
    func search(_ params: QueryParams, requiringSignatures: Bool) async throws(ClientError) -> QueryResult {
        try await search(params, requiringSignatures: requiringSignatures, writers: nil).page
    }

    /// As ``search(_:requiringSignatures:)``; with `writers`, a record of any other writer is left out before
    /// anything is decrypted, its meta listed in `dropped`.
    func search(
        _ params: QueryParams,
        requiringSignatures: Bool,
        writers: Set<String>?
    ) async throws(ClientError) -> (page: QueryResult, dropped: [RecordMeta]) {
        let found = try await search(params, requiringSignatures: requiringSignatures, writers: writers, tolerating: [])
        return (found.page, found.dropped)
    }

    /// As ``search(_:requiringSignatures:writers:)``; a record of a writer in `tolerating` that does not verify
    /// (``ClientError/Code/tampered``) is left out, its meta listed in `unverified`, instead of failing the page.
    func search(
        _ params: QueryParams,
        requiringSignatures: Bool,
        writers: Set<String>?,
        tolerating: Set<String>
    ) async throws(ClientError) -> (page: QueryResult, dropped: [RecordMeta], unverified: [RecordMeta]) {
        let response = try await authenticated(
            .POST,
            E3DBPath.search.render(),
            body: params.wire,
            success: [200],
            as: SearchResponse.self
        )
        var (records, dropped, unverified) = ([Record](), [RecordMeta](), [RecordMeta]())
        records.reserveCapacity(response.results.count)
        for result in response.results {
            let writer = result.meta.writerID.lowercased()
            if let writers, !writers.contains(writer) {
                dropped.append(result.meta)
                continue
            }
            let opened: Result<Record, ClientError>
            do {
                opened = .success(
                    try await decrypt(
                        meta: result.meta,
                        data: result.recordData ?? [:],
                        inlineKey: result.accessKey,
                        signature: result.recordSignature,
                        requiringSignature: requiringSignatures
                    )
                )
            } catch {
                opened = .failure(error)
            }
            switch opened {
            case .success(let record): records.append(record)
            case .failure(let error) where error.code == .tampered && tolerating.contains(writer):
                unverified.append(result.meta)
            case .failure(let error): throw error
            }
        }
        return (QueryResult(records: records, lastIndex: response.lastIndex), dropped, unverified)
    }

    /// Every record matching `params`, fetched a page at a time as you iterate.
    public func records(matching params: QueryParams) -> RecordSequence {
        RecordSequence(client: self, params: params)
    }
}

/// The records of a query, paged lazily (``Client/records(matching:)``).
public struct RecordSequence: AsyncSequence, Sendable {
    public typealias Element = Record
    public typealias Failure = ClientError

    let client: Client
    let params: QueryParams

    public func makeAsyncIterator() -> Iterator { Iterator(client: client, params: params) }

    /// Fetches the next page when the current one runs out.
    public struct Iterator: AsyncIteratorProtocol {
        let client: Client
        var params: QueryParams
        var buffer: [Record] = []
        var finished = false

        public mutating func next(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws(ClientError)
            -> Record?
        {
            while buffer.isEmpty {
                if finished { return nil }
                let page = try await client.query(params)
                buffer = page.records.reversed()
                finished = page.records.count < params.count
                params = params.next(after: page)
            }
            return buffer.popLast()
        }

        public mutating func next() async throws(ClientError) -> Record? { try await next(isolation: nil) }
    }
}
