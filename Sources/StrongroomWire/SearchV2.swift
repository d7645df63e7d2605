// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v2/search` body.
public struct SearchV2Request: Codable, Sendable, Hashable {
    /// One match or exclude clause.
    public struct Clause: Codable, Sendable, Hashable {
        /// The terms of a clause; empty or `null` lists add no condition.
        public struct Terms: Codable, Sendable, Hashable {
            /// `writer_ids` in the JSON.
            public var writerIDs: [String]?
            /// `user_ids` in the JSON.
            public var userIDs: [String]?
            /// `record_ids` in the JSON.
            public var recordIDs: [String]?
            /// `content_types` in the JSON.
            public var contentTypes: [String]?
            /// `keys` in the JSON.
            public var keys: [String]?
            /// `values` in the JSON.
            public var values: [String]?
            /// `tags` in the JSON.
            public var tags: [String: String]?

            enum CodingKeys: String, CodingKey {
                case writerIDs = "writer_ids"
                case userIDs = "user_ids"
                case recordIDs = "record_ids"
                case contentTypes = "content_types"
                case keys
                case values
                case tags
            }

            /// Creates terms.
            public init(
                writerIDs: [String]? = nil,
                userIDs: [String]? = nil,
                recordIDs: [String]? = nil,
                contentTypes: [String]? = nil,
                keys: [String]? = nil,
                values: [String]? = nil,
                tags: [String: String]? = nil
            ) {
                self.writerIDs = writerIDs
                self.userIDs = userIDs
                self.recordIDs = recordIDs
                self.contentTypes = contentTypes
                self.keys = keys
                self.values = values
                self.tags = tags
            }
        }

        /// `OR` or `AND` (default `OR`).
        public var condition: String?
        /// `EXACT`, `FUZZY`, `WILDCARD` or `REGEXP` (default `EXACT`).
        public var strategy: String?
        /// `terms` in the JSON.
        public var terms: Terms?

        /// Creates a clause.
        public init(condition: String? = nil, strategy: String? = nil, terms: Terms? = nil) {
            self.condition = condition
            self.strategy = strategy
            self.terms = terms
        }
    }

    /// The time range: on `CREATED` (default) or `MODIFIED`, exclusive bounds, either may be missing.
    public struct Range: Codable, Sendable, Hashable {
        /// `range_key` in the JSON.
        public var rangeKey: String?
        /// `after` in the JSON.
        public var after: Timestamp?
        /// `before` in the JSON.
        public var before: Timestamp?

        enum CodingKeys: String, CodingKey {
            case rangeKey = "range_key"
            case after
            case before
        }

        /// Creates a range.
        public init(rangeKey: String? = nil, after: Timestamp? = nil, before: Timestamp? = nil) {
            self.rangeKey = rangeKey
            self.after = after
            self.before = before
        }
    }

    /// `limit` in the JSON.
    public var limit: Int?
    /// `next_token` in the JSON.
    public var nextToken: Int?
    /// `include_all_writers` in the JSON.
    public var includeAllWriters: Bool?
    /// `include_data` in the JSON.
    public var includeData: Bool?
    /// `match` in the JSON.
    public var match: [Clause]?
    /// `exclude` in the JSON.
    public var exclude: [Clause]?
    /// `range` in the JSON.
    public var range: Range?

    enum CodingKeys: String, CodingKey {
        case limit
        case nextToken = "next_token"
        case includeAllWriters = "include_all_writers"
        case includeData = "include_data"
        case match
        case exclude
        case range
    }

    /// Creates a v2 search.
    public init(
        limit: Int? = nil,
        nextToken: Int? = nil,
        includeAllWriters: Bool? = nil,
        includeData: Bool? = nil,
        match: [Clause]? = nil,
        exclude: [Clause]? = nil,
        range: Range? = nil
    ) {
        self.limit = limit
        self.nextToken = nextToken
        self.includeAllWriters = includeAllWriters
        self.includeData = includeData
        self.match = match
        self.exclude = exclude
        self.range = range
    }
}

/// `POST /v2/search` answer.
public struct SearchV2Response: Codable, Sendable, Hashable {
    /// `results` in the JSON.
    public var results: [SearchResult]
    /// The next offset, or 0 when there are no more pages.
    public var lastIndex: Int
    /// `total_results` in the JSON.
    public var totalResults: Int
    /// `search_id` in the JSON.
    public var searchID: String

    enum CodingKeys: String, CodingKey {
        case results
        case lastIndex = "last_index"
        case totalResults = "total_results"
        case searchID = "search_id"
    }

    /// Creates the answer.
    public init(results: [SearchResult], lastIndex: Int, totalResults: Int, searchID: String) {
        self.results = results
        self.lastIndex = lastIndex
        self.totalResults = totalResults
        self.searchID = searchID
    }
}
