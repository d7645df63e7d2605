// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomSync
import Testing

/// The replication record format (docs/design/Replication.md, slice 1): type names and blind tags against vectors
/// computed in Python, and a pulled record refused when it is swapped, replayed, malformed or out of bounds.
@Suite struct RevisionRecordTests {
    struct NameVectors: Decodable {
        struct TypeName: Decodable {
            var name: String
            var type: String
        }

        struct Tags: Decodable {
            var doc: String
            var rev: String
            var documentTag: String
            var revisionTag: String

            enum CodingKeys: String, CodingKey {
                case doc, rev
                case documentTag = "document_tag"
                case revisionTag = "revision_tag"
            }
        }

        var privateKey: String
        var clientID: String
        var accessKey: String
        struct Address: Decodable {
            var digest: String
            var address: String
        }

        var types: [TypeName]
        var tags: [Tags]
        var attachments: [Address]

        enum CodingKeys: String, CodingKey {
            case types, tags, attachments
            case privateKey = "private_key"
            case clientID = "client_id"
            case accessKey = "access_key"
        }
    }

    static func vectors() throws -> NameVectors {
        let url = try #require(Bundle.module.url(forResource: "Vectors", withExtension: nil))
        return try JSONDecoder().decode(
            NameVectors.self,
            from: Data(contentsOf: url.appending(path: "sync-names.json"))
        )
    }

    static func accessKey(_ text: String) throws -> AccessKey {
        try AccessKey(rawRepresentation: SecureBytes(copying: try Base64URL.decode(text)))
    }

    @Test("type names and tags equal Python's hmac/hashlib")
    func knownAnswers() throws {
        let vectors = try Self.vectors()
        let privateKey = try EncryptionPrivateKey(base64URLEncoded: vectors.privateKey)
        let typeKey = try ReplicationTypeKey(privateKey: privateKey, clientID: vectors.clientID)
        #expect(vectors.types.count == 5 && vectors.tags.count == 5)
        for vector in vectors.types {
            #expect(try typeKey.recordType(forDatastoreNamed: vector.name) == vector.type, "\(vector.name)")
        }
        let tags = try RevisionTagKey(accessKey: try Self.accessKey(vectors.accessKey))
        for vector in vectors.tags {
            #expect(tags.documentTag(vector.doc) == vector.documentTag, "\(vector.doc)")
            #expect(tags.revisionTag(docID: vector.doc, revID: vector.rev) == vector.revisionTag, "\(vector.doc)")
        }
        #expect(vectors.attachments.count == 2)
        for vector in vectors.attachments {
            #expect(tags.attachmentAddress(digest: vector.digest) == vector.address, "\(vector.digest)")
        }
        // Another client ID, another key: other names.
        let other = try ReplicationTypeKey(privateKey: privateKey, clientID: "another-client")
        #expect(try other.recordType(forDatastoreNamed: "notes") != vectors.types[0].type)
        #expect(throws: SyncError.self) { try typeKey.recordType(forDatastoreNamed: "") }
        #expect(throws: SyncError.self) {
            try typeKey.recordType(forDatastoreNamed: String(repeating: "a", count: 257))
        }
    }

    static let tags = try! RevisionTagKey(accessKey: AccessKey())

    static func record(
        doc: String = "first",
        rev: String = "3-c",
        ancestry: [String] = ["3-c", "2-b", "1-a"],
        deleted: Bool = false,
        body: String = #"{"title":"hello"}"#
    ) throws -> RevisionRecord {
        try RevisionRecord(docID: doc, revID: rev, ancestry: ancestry, isDeleted: deleted, body: body)
    }

    @Test("a record reads back from its fields and plain meta, whatever its IDs hold")
    func roundTrip() throws {
        for record in [
            try Self.record(),
            try Self.record(doc: "doc\u{0}with nul ünï", rev: "1-z", ancestry: ["1-z"], deleted: true, body: "{}"),
            try Self.record(rev: "7-x", ancestry: ["7-x", "6-y"]),  // cut short of the root
        ] {
            let plain = record.plain(tags: Self.tags)
            #expect(plain.count == 3 && plain[RevisionRecord.PlainKey.version] == "1")
            #expect(try RevisionRecord(fields: record.fields, plain: plain, tags: Self.tags) == record)
            // The plain meta holds neither ID.
            #expect(!plain.values.contains { $0.contains(record.docID) || $0.contains(record.revID) })
        }
    }

    @Test("swapped, replayed, foreign-key and unknown-version records are refused")
    func tampering() throws {
        let one = try Self.record(doc: "one")
        let two = try Self.record(doc: "two")
        func code(
            _ fields: [String: String],
            _ plain: [String: String],
            _ tags: RevisionTagKey = Self.tags
        ) -> SyncError.Code? {
            do {
                _ = try RevisionRecord(fields: fields, plain: plain, tags: tags)
                return nil
            } catch {
                return error.code
            }
        }
        // The body of one document under another's tags (swapped), a revision under an older revision's tag.
        #expect(code(one.fields, two.plain(tags: Self.tags)) == .tampered)
        let older = try Self.record(doc: "one", rev: "2-b", ancestry: ["2-b", "1-a"])
        #expect(code(one.fields, older.plain(tags: Self.tags)) == .tampered)
        var mixed = one.plain(tags: Self.tags)
        mixed[RevisionRecord.PlainKey.documentTag] = two.plain(tags: Self.tags)[RevisionRecord.PlainKey.documentTag]
        #expect(code(one.fields, mixed) == .tampered)
        // Tags made under another datastore's key.
        #expect(code(one.fields, one.plain(tags: try RevisionTagKey(accessKey: AccessKey()))) == .tampered)
        var missing = one.plain(tags: Self.tags)
        missing[RevisionRecord.PlainKey.revisionTag] = nil
        #expect(code(one.fields, missing) == .tampered)
        var future = one.plain(tags: Self.tags)
        future[RevisionRecord.PlainKey.version] = "2"
        #expect(code(one.fields, future) == .unsupportedVersion)
    }

    @Test("malformed or oversized fields are invalidRecord, checked before any hashing")
    func bounds() throws {
        let record = try Self.record()
        let plain = record.plain(tags: Self.tags)
        let cases: [(String, String?)] = [
            (RevisionRecord.FieldName.deleted, "yes"), (RevisionRecord.FieldName.deleted, nil),
            (RevisionRecord.FieldName.ancestry, "not json"), (RevisionRecord.FieldName.ancestry, "[1, 2]"),
            (RevisionRecord.FieldName.ancestry, #"["2-b","1-a"]"#),  // does not start at the revision
            (RevisionRecord.FieldName.ancestry, #"["3-c","1-a"]"#),  // skips a generation
            (RevisionRecord.FieldName.ancestry, #"["3-c","3-c"]"#),  // repeats one
            (RevisionRecord.FieldName.ancestry, "[" + String(repeating: #""1-a","#, count: 30_000) + #""1-a"]"#),
            (RevisionRecord.FieldName.revisionID, "3-c!"), (RevisionRecord.FieldName.body, "[]"),
            (RevisionRecord.FieldName.body, "{" + String(repeating: " ", count: 1 << 20) + "}"),
            (RevisionRecord.FieldName.attachments, "null"), (RevisionRecord.FieldName.documentID, ""),
            (RevisionRecord.FieldName.documentID, String(repeating: "x", count: 513)),
        ]
        for (name, value) in cases {
            var fields = record.fields
            fields[name] = value
            #expect(throws: SyncError.self, "\(name)") {
                try RevisionRecord(fields: fields, plain: plain, tags: Self.tags)
            }
            do {
                _ = try RevisionRecord(fields: fields, plain: plain, tags: Self.tags)
            } catch {
                #expect(error.code == .invalidRecord, "\(name) = \(value?.prefix(40) ?? "nil"): \(error)")
            }
        }
        for revision in ["0-a", "01-a", "-a", "1-", "2147483648-a", "1-" + String(repeating: "a", count: 65), "x-a"] {
            #expect(throws: SyncError.self, "\(revision)") {
                try RevisionRecord(docID: "d", revID: revision, ancestry: [revision], isDeleted: false, body: "{}")
            }
        }
        #expect(throws: SyncError.self) {
            try RevisionRecord(
                docID: "d",
                revID: "1001-a",
                ancestry: (0..<1_001).map { "\(1001 - $0)-a" },
                isDeleted: false,
                body: "{}"
            )
        }
    }

    @Test("a purge marker reads back; a swapped tag, a foreign key, bad or too many revision IDs are refused")
    func purgeMarker() throws {
        let marker = try PurgeRecord(docID: "secret", revIDs: ["2-b", "1-a", "2-c"])
        let plain = marker.plain(tags: Self.tags)
        #expect(plain.count == 2 && plain[RevisionRecord.PlainKey.purge] == Self.tags.documentTag("secret"))
        #expect(try PurgeRecord(fields: marker.fields, plain: plain, tags: Self.tags) == marker)
        func code(
            _ fields: [String: String],
            _ plain: [String: String],
            _ tags: RevisionTagKey = Self.tags
        )
            -> SyncError.Code?
        {
            do {
                _ = try PurgeRecord(fields: fields, plain: plain, tags: tags)
                return nil
            } catch {
                return error.code
            }
        }
        let other = try PurgeRecord(docID: "other", revIDs: ["1-a"])
        #expect(code(marker.fields, other.plain(tags: Self.tags)) == .tampered)
        #expect(code(marker.fields, plain, try RevisionTagKey(accessKey: AccessKey())) == .tampered)
        var future = plain
        future[RevisionRecord.PlainKey.version] = "2"
        #expect(code(marker.fields, future) == .unsupportedVersion)
        let revs = RevisionRecord.FieldName.purgedRevisions
        for value in [
            "[]", "not json", #"["1-a!"]"#, "[" + String(repeating: #""1-a","#, count: 1_000) + #""1-a"]"#,
            "[" + String(repeating: " ", count: 80_000) + "]",
        ] {
            var fields = marker.fields
            fields[revs] = value
            #expect(code(fields, plain) == .invalidRecord, "\(value.prefix(20))")
        }
        var noDoc = marker.fields
        noDoc[RevisionRecord.FieldName.documentID] = nil
        #expect(code(noDoc, plain) == .invalidRecord)
    }
}
