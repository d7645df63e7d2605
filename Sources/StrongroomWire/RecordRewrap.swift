// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `POST /v2/storage/access_keys/{writer}/{user}/{type}/rewrap`: a page of the writer's records of the type with their
/// fields' data keys sealed again under the current generation's key (docs/design/Revocation.md, "The bulk
/// re-wrap"). The server checks each record is the writer's and of the type, at `version`, and that only the data
/// keys' wraps changed (each field's value ciphertext and nonce are the stored ones), then stores every one in one
/// transaction with a new version. The official SDKs never call it.
public struct RecordRewrapRequest: Codable, Sendable, Hashable {
    /// The generation the new wraps are under: the type's current one (else 409 `stale_key_generation`).
    public var generation: Int
    /// The records, each at most once.
    public var records: [Record]

    /// One record's new wraps.
    public struct Record: Codable, Sendable, Hashable {
        /// The record (lowercase UUID).
        public var recordID: String
        /// The version the wraps were made from.
        public var version: String
        /// Every field, as `EDK.EDKN.EF.EFN` with `EF.EFN` unchanged.
        public var data: [String: String]

        enum CodingKeys: String, CodingKey {
            case recordID = "record_id"
            case version, data
        }

        /// Creates one.
        public init(recordID: String, version: String, data: [String: String]) {
            (self.recordID, self.version, self.data) = (recordID, version, data)
        }
    }

    /// Creates the body.
    public init(generation: Int, records: [Record]) {
        (self.generation, self.records) = (generation, records)
    }
}

/// What became of each record of a ``RecordRewrapRequest``, in its order.
public struct RecordRewrapResponse: Codable, Sendable, Hashable {
    /// One outcome per record.
    public var results: [Result]

    /// One record's outcome.
    public struct Result: Codable, Sendable, Hashable {
        /// The record.
        public var recordID: String
        /// `rewrapped`, `conflict` (its version is another now: read it again) or `not_found` (gone, or not the
        /// writer's record of the type).
        public var outcome: String
        /// Its new version, when re-wrapped.
        public var version: String?

        enum CodingKeys: String, CodingKey {
            case recordID = "record_id"
            case outcome, version
        }

        /// Creates one.
        public init(recordID: String, outcome: String, version: String? = nil) {
            (self.recordID, self.outcome, self.version) = (recordID, outcome, version)
        }

        /// The outcomes' names.
        public static let rewrapped = "rewrapped"
        public static let conflict = "conflict"
        public static let notFound = "not_found"
    }

    /// Creates the answer.
    public init(results: [Result]) { self.results = results }
}

/// `GET /v2/storage/access_keys/{writer}/{user}/{type}/rewrap?after=N&count=M`: the writer's committed records of
/// the type after index N, in index order, as a re-wrap reads them (no metadata, no inline keys).
public struct RecordRewrapListing: Codable, Sendable, Hashable {
    /// The records.
    public var records: [Record]
    /// The index of the last one (`after` when there is none): the next page starts after it.
    public var lastIndex: Int64

    /// One record.
    public struct Record: Codable, Sendable, Hashable {
        /// The record (lowercase UUID).
        public var recordID: String
        /// Its version now.
        public var version: String
        /// Its fields, `EDK.EDKN.EF.EFN` each (`{}` for a file).
        public var data: [String: String]
        /// Whether it is a file record (its key is in the file's prologue, ``FileKeyResponse``).
        public var file: Bool

        enum CodingKeys: String, CodingKey {
            case recordID = "record_id"
            case version, data, file
        }

        /// Creates one.
        public init(recordID: String, version: String, data: [String: String], file: Bool) {
            (self.recordID, self.version, self.data, self.file) = (recordID, version, data, file)
        }
    }

    enum CodingKeys: String, CodingKey {
        case records
        case lastIndex = "last_index"
    }

    /// Creates a page.
    public init(records: [Record], lastIndex: Int64) { (self.records, self.lastIndex) = (records, lastIndex) }
}
