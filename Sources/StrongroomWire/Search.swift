// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v1/storage/search` body. Every key is optional (Go, Swift and JS leave empty ones out).
public struct SearchRequest: Codable, Sendable, Hashable {
    /// `count` in the JSON.
    public var count: Int?
    /// `after_index` in the JSON.
    public var afterIndex: Int64?
    /// `include_data` in the JSON.
    public var includeData: Bool?
    /// `writer_ids` in the JSON.
    public var writerIDs: [String]?
    /// `user_ids` in the JSON.
    public var userIDs: [String]?
    /// `record_ids` in the JSON.
    public var recordIDs: [String]?
    /// `content_types` in the JSON.
    public var contentTypes: [String]?
    /// `plain` in the JSON.
    public var plain: PlainFilter?
    /// `include_all_writers` in the JSON.
    public var includeAllWriters: Bool?

    enum CodingKeys: String, CodingKey {
        case count
        case afterIndex = "after_index"
        case includeData = "include_data"
        case writerIDs = "writer_ids"
        case userIDs = "user_ids"
        case recordIDs = "record_ids"
        case contentTypes = "content_types"
        case plain
        case includeAllWriters = "include_all_writers"
    }

    /// Creates a search request.
    public init(
        count: Int? = nil,
        afterIndex: Int64? = nil,
        includeData: Bool? = nil,
        writerIDs: [String]? = nil,
        userIDs: [String]? = nil,
        recordIDs: [String]? = nil,
        contentTypes: [String]? = nil,
        plain: PlainFilter? = nil,
        includeAllWriters: Bool? = nil
    ) {
        self.count = count
        self.afterIndex = afterIndex
        self.includeData = includeData
        self.writerIDs = writerIDs
        self.userIDs = userIDs
        self.recordIDs = recordIDs
        self.contentTypes = contentTypes
        self.plain = plain
        self.includeAllWriters = includeAllWriters
    }
}

/// The v1 `plain` filter: the Python DSL (`eq`, `and`, `or`, `not`) or Go's flat map of equalities.
public indirect enum PlainFilter: Codable, Sendable, Hashable {
    /// `{"eq": {"name": K, "value": V}}`: the plain metadata has key K equal to V.
    case equals(name: String, value: String)
    /// `{"and": [...]}`: all of them.
    case all([PlainFilter])
    /// `{"or": [...]}`: any of them.
    case any([PlainFilter])
    /// `{"not": f}`: not this one.
    case not(PlainFilter)

    private struct Equality: Codable, Hashable {
        var name: String
        var value: String
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        let keys = container.allKeys.map(\.stringValue)
        if keys == ["eq"] {
            let equality = try container.decode(Equality.self, forKey: AnyKey(stringValue: "eq"))
            self = .equals(name: equality.name, value: equality.value)
        } else if keys == ["and"] {
            self = .all(try container.decode([PlainFilter].self, forKey: AnyKey(stringValue: "and")))
        } else if keys == ["or"] {
            self = .any(try container.decode([PlainFilter].self, forKey: AnyKey(stringValue: "or")))
        } else if keys == ["not"] {
            self = .not(try container.decode(PlainFilter.self, forKey: AnyKey(stringValue: "not")))
        } else {
            // Go's flat map: {"k": "v", …}, all of them.
            self = .all(
                try keys.sorted().map { key in
                    .equals(name: key, value: try container.decode(String.self, forKey: AnyKey(stringValue: key)))
                }
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        switch self {
        case .equals(let name, let value):
            try container.encode(Equality(name: name, value: value), forKey: AnyKey(stringValue: "eq"))
        case .all(let filters):
            try container.encode(filters, forKey: AnyKey(stringValue: "and"))
        case .any(let filters):
            try container.encode(filters, forKey: AnyKey(stringValue: "or"))
        case .not(let filter):
            try container.encode(filter, forKey: AnyKey(stringValue: "not"))
        }
    }

    /// Whether a record's plain metadata satisfies the filter.
    public func matches(_ plain: [String: String]) -> Bool {
        switch self {
        case .equals(let name, let value): plain[name] == value
        case .all(let filters): filters.allSatisfy { $0.matches(plain) }
        case .any(let filters): filters.contains { $0.matches(plain) }
        case .not(let filter): !filter.matches(plain)
        }
    }
}

/// One v1 search hit.
public struct SearchResult: Codable, Sendable, Hashable {
    /// `meta` in the JSON.
    public var meta: RecordMeta
    /// The ciphertexts with `include_data`, `null` without (the key is always present).
    public var recordData: [String: String]?
    /// The caller's EAK for the record's type, inline (Swift and Java SDKs need it).
    public var accessKey: AccessKeyResponse?
    /// `rec_sig`, when the writer sent one (a Strongroom extension of the v1 result; other SDKs ignore it).
    public var recordSignature: String?

    enum CodingKeys: String, CodingKey {
        case meta
        case recordData = "record_data"
        case accessKey = "access_key"
        case recordSignature = "rec_sig"
    }

    /// Creates a search hit.
    public init(
        meta: RecordMeta,
        recordData: [String: String]?,
        accessKey: AccessKeyResponse?,
        recordSignature: String? = nil
    ) {
        self.meta = meta
        self.recordData = recordData
        self.accessKey = accessKey
        self.recordSignature = recordSignature
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(meta, forKey: .meta)
        try container.encode(recordData, forKey: .recordData)
        try container.encode(accessKey, forKey: .accessKey)
        try container.encodeIfPresent(recordSignature, forKey: .recordSignature)
    }
}

/// `POST /v1/storage/search` answer.
public struct SearchResponse: Codable, Sendable, Hashable {
    /// `results` in the JSON.
    public var results: [SearchResult]
    /// `last_index` in the JSON.
    public var lastIndex: Int64

    enum CodingKeys: String, CodingKey {
        case results
        case lastIndex = "last_index"
    }

    /// Creates a search answer.
    public init(results: [SearchResult], lastIndex: Int64) {
        self.results = results
        self.lastIndex = lastIndex
    }
}
