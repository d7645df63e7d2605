// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A file record's sealed key, the dotted prologue of E3DB's file format (`3.EDK.EDKN.`, 100 ASCII bytes: the
/// secretstream key sealed under the access key), as the re-wrap of a rotation reads and replaces it
/// (docs/design/Revocation.md, "Files"). `GET /v2/storage/files/{id}/key` answers ``FileKeyResponse``; `PUT`
/// takes ``FileKeyRewrapRequest`` and answers ``FileKeyRewrapResponse``. The writer only; the official SDKs never
/// call them, and read the file as before, with the new prologue in its place.
public enum FilePrologue {
    /// Its size: `"3."`, 64 base64url characters (a 48-byte sealed key), `"."`, 32 (a 24-byte nonce), `"."`.
    public static let size = 100

    /// Whether `bytes` is a prologue of exactly this shape: the only one a re-wrap replaces, so the file keeps its
    /// size and every byte after it.
    public static func isWellFormed(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count == size else { return false }
        for (offset, byte) in bytes.enumerated() {
            switch offset {
            case 0: guard byte == UInt8(ascii: "3") else { return false }
            case 1, 66, 99: guard byte == UInt8(ascii: ".") else { return false }
            default: guard isBase64URL(byte) else { return false }
            }
        }
        return true
    }

    /// Whether `text` is a prologue of this shape.
    public static func isWellFormed(_ text: String) -> Bool { isWellFormed(Array(text.utf8)) }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}

/// `GET /v2/storage/files/{id}/key`: the file's current prologue and the record's version.
public struct FileKeyResponse: Codable, Sendable, Hashable {
    /// The file record (lowercase UUID).
    public var recordID: String
    /// Its version now.
    public var version: String
    /// Its ``FilePrologue`` now.
    public var prologue: String

    enum CodingKeys: String, CodingKey {
        case recordID = "record_id"
        case version, prologue
    }

    /// Creates one.
    public init(recordID: String, version: String, prologue: String) {
        (self.recordID, self.version, self.prologue) = (recordID, version, prologue)
    }
}

/// `PUT /v2/storage/files/{id}/key`: the file's key sealed again under the current generation. The server checks
/// the generation (409 `stale_key_generation`), the version (409) and the prologue's shape (400), then serves the
/// file with the new prologue in place of the old one and its checksum computed again, in one update with a new
/// version. The stored body is never rewritten.
public struct FileKeyRewrapRequest: Codable, Sendable, Hashable {
    /// The generation the new prologue is sealed under: the type's current one.
    public var generation: Int
    /// The version the prologue was read at.
    public var version: String
    /// The new ``FilePrologue``.
    public var prologue: String

    /// Creates the body.
    public init(generation: Int, version: String, prologue: String) {
        (self.generation, self.version, self.prologue) = (generation, version, prologue)
    }
}

/// The answer to ``FileKeyRewrapRequest``: the record's new version and the file's new checksum.
public struct FileKeyRewrapResponse: Codable, Sendable, Hashable {
    /// The file record.
    public var recordID: String
    /// Its new version.
    public var version: String
    /// The standard-base64 MD5 of the file as it is served now.
    public var checksum: String

    enum CodingKeys: String, CodingKey {
        case recordID = "record_id"
        case version, checksum
    }

    /// Creates one.
    public init(recordID: String, version: String, checksum: String) {
        (self.recordID, self.version, self.checksum) = (recordID, version, checksum)
    }
}
