// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomWire

/// `POST /v2/search`: match and exclude clauses with EXACT, FUZZY, WILDCARD and REGEXP strategies, a time range,
/// and offset paging.
///
/// It scans the caller's scope (own records, plus shared ones with `include_all_writers`) in index order, which
/// is creation order; fine for the embedded deployment, and the next step for a large one is an index.
struct SearchV2Routes {
    let store: any ServerStore
    let records: RecordRoutes

    func search(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SearchV2Request.self, request, context)
        let limit = body.limit ?? 50
        let offset = body.nextToken ?? 0
        guard (1...1000).contains(limit) else { throw ServerError.badRequest("limit must be 1 to 1000") }
        guard offset >= 0 else { throw ServerError.badRequest("next_token must not be negative") }
        let filter = try SearchV2Filter(body)
        let scope: RecordQuery.Scope = body.includeAllWriters == true ? .readableBy(caller) : .writtenBy(caller)
        var query = RecordQuery(
            scope: scope,
            afterIndex: 0,
            limit: 1000,
            writerIDs: [],
            userIDs: [],
            recordIDs: [],
            types: []
        )
        var matches: [StoredRecord] = []
        while true {
            let batch = try await store.records(matching: query)
            matches += batch.filter(filter.accepts)
            guard batch.count == query.limit, let last = batch.last else { break }
            query.afterIndex = last.index
        }
        let page = Array(matches.dropFirst(offset).prefix(limit))
        let next = offset + limit < matches.count ? offset + limit : 0
        return try json(
            SearchV2Response(
                results: try await records.searchResults(
                    for: page,
                    caller: caller,
                    includeData: body.includeData ?? false
                ),
                lastIndex: next,
                totalResults: matches.count,
                searchID: SecureRandom.uuid().uuidString.lowercased()
            )
        )
    }
}
