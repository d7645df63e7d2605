// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomWire

/// `POST /v2/search`: match and exclude clauses with EXACT, FUZZY, WILDCARD and REGEXP strategies, a time range,
/// and offset paging.
///
/// It scans the caller's scope (own records, plus shared ones with `include_all_writers`) in index order, which is
/// creation order, reading metadata only, in batches. Matching runs on the `BlockingExecutor`, never on the
/// cooperative pool, and is charged against a ``SearchBudget``; only the requested page is kept, and its
/// ciphertext is read at the end, within the response's byte budget.
struct SearchV2Routes {
    static let batchSize = 200

    let store: any RecordStore
    let results: RecordResults
    let limits: ServerLimits

    /// Its path, behind client authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        RouteCollection(context: StrongroomRequestContext.self).post(RouterPath(.searchV2), use: search)
    }

    func search(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        let caller = try context.caller()
        let body = try await decodeBody(SearchV2Request.self, request, context)
        let limit = body.limit ?? 50
        let offset = body.nextToken ?? 0
        guard (1...1000).contains(limit) else { throw ServerError.badRequest("limit must be 1 to 1000") }
        guard offset >= 0 else { throw ServerError.badRequest("next_token must not be negative") }
        // Written so that no sum can overflow, whatever next_token is.
        guard offset <= limits.searchWindow - limit else {
            throw ServerError.badRequest("next_token + limit may not exceed \(limits.searchWindow)")
        }
        let filter = try SearchV2Filter(body)
        let scope: RecordQuery.Scope = body.includeAllWriters == true ? .readableBy(caller) : .writtenBy(caller)
        var query = RecordQuery(
            scope: scope,
            afterIndex: 0,
            limit: Self.batchSize,
            writerIDs: [],
            userIDs: [],
            recordIDs: [],
            types: [],
            includesData: false
        )
        var budget = SearchBudget(units: limits.searchWorkUnits)
        var page: [StoredRecord] = []
        var total = 0
        while true {
            let batch = try await store.records(matching: query)
            let (accepted, remaining) = try await BlockingExecutor.shared.run { [budget] _ in
                var budget = budget
                return (try filter.accepted(batch, budget: &budget), budget)
            }
            budget = remaining
            for record in accepted {
                if total >= offset && page.count < limit { page.append(record) }
                total += 1
            }
            guard batch.count == query.limit, let last = batch.last else { break }
            query.afterIndex = last.index
        }
        let includeData = body.includeData ?? false
        let withData = includeData ? try await results.withData(page) : page
        let next = offset + withData.count < total ? offset + withData.count : 0
        return try json(
            SearchV2Response(
                results: try await results.searchResults(for: withData, caller: caller, includeData: includeData),
                lastIndex: next,
                totalResults: total,
                searchID: SecureRandom.uuid().uuidString.lowercased()
            )
        )
    }
}
