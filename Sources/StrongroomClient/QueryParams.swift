// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomWire

/// What to search for (e3db-swift's `QueryParams`): every filter is AND-ed; empty lists mean "any".
public struct QueryParams: Sendable, Hashable {
    /// At most this many records per page (1 to 1000).
    public var count: Int
    /// Only these record types.
    public var types: [String]
    /// Include records other writers shared with this client.
    public var includesAllWriters: Bool
    /// Only these writers (their shared records are included).
    public var writerIDs: [UUID]
    /// Only these users.
    public var userIDs: [UUID]
    /// Only these records.
    public var recordIDs: [UUID]
    /// Only records whose plaintext metadata satisfies this filter.
    public var plain: PlainFilter?
    /// Whether to fetch and decrypt the data (false: metadata only, `data` empty).
    public var includesData: Bool
    /// Start after this index (`0`: from the beginning); ``QueryResult/lastIndex`` of the previous page.
    public var afterIndex: Int64

    /// Creates query parameters.
    public init(
        count: Int = 50,
        types: [String] = [],
        includesAllWriters: Bool = false,
        writerIDs: [UUID] = [],
        userIDs: [UUID] = [],
        recordIDs: [UUID] = [],
        plain: PlainFilter? = nil,
        includesData: Bool = true,
        afterIndex: Int64 = 0
    ) {
        self.count = count
        self.types = types
        self.includesAllWriters = includesAllWriters
        self.writerIDs = writerIDs
        self.userIDs = userIDs
        self.recordIDs = recordIDs
        self.plain = plain
        self.includesData = includesData
        self.afterIndex = afterIndex
    }

    /// The same query, for the page after `result` (e3db-swift's `next(after:)`).
    public func next(after result: QueryResult) -> QueryParams {
        var next = self
        next.afterIndex = result.lastIndex
        return next
    }

    var wire: SearchRequest {
        SearchRequest(
            count: count,
            afterIndex: afterIndex,
            includeData: includesData,
            writerIDs: writerIDs.map { ClientID($0).description },
            userIDs: userIDs.map { ClientID($0).description },
            recordIDs: recordIDs.map { RecordID($0).description },
            contentTypes: types,
            plain: plain,
            includeAllWriters: includesAllWriters
        )
    }
}

/// One page of a query.
public struct QueryResult: Sendable, Hashable {
    /// The records of this page, decrypted.
    public var records: [Record]
    /// Where the next page starts.
    public var lastIndex: Int64
}
