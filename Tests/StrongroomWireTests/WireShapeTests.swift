// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomWire
import Testing

/// The JSON shapes the official SDKs depend on (protocol spec §1, §4, §5, §8).
@Suite struct WireShapeTests {
    func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test("registration and client info always carry signing_key, null when absent")
    func signingKeyPresent() throws {
        let registration = RegistrationResponse(
            clientID: "c",
            apiKeyID: "k",
            apiSecret: "s",
            name: "n",
            publicKey: .init(curve25519: "p"),
            signingKey: nil,
            enabled: true
        )
        let object = try json(registration)
        #expect(object.keys.contains("signing_key"))
        #expect(object["signing_key"] is NSNull)
        let info = try json(
            ClientInfo(clientID: "c", publicKey: .init(curve25519: "p"), signingKey: nil, validated: true)
        )
        #expect(info["signing_key"] is NSNull)
        #expect(info["validated"] as? Bool == true)
    }

    @Test("file_meta is left out of ordinary records and present, with null URL and name keys, for files")
    func fileMeta() throws {
        let stamp = Timestamp(microseconds: 0)
        var meta = RecordMeta(
            recordID: "r",
            writerID: "w",
            userID: "u",
            type: "t",
            plain: [:],
            created: stamp,
            lastModified: stamp,
            version: "v"
        )
        #expect(try json(meta)["file_meta"] == nil)
        meta.fileMeta = FileMeta(checksum: "c", compression: "raw", size: 3)
        let file = try #require(try json(meta)["file_meta"] as? [String: Any])
        #expect(file["file_url"] is NSNull)
        #expect(file["file_name"] is NSNull)
        #expect(file["size"] as? Int == 3)
    }

    @Test("search results always carry record_data and access_key, null when absent")
    func searchResult() throws {
        let stamp = Timestamp(microseconds: 0)
        let meta = RecordMeta(
            recordID: "r",
            writerID: "w",
            userID: "u",
            type: "t",
            plain: [:],
            created: stamp,
            lastModified: stamp,
            version: "v"
        )
        let object = try json(SearchResult(meta: meta, recordData: nil, accessKey: nil))
        #expect(object["record_data"] is NSNull)
        #expect(object["access_key"] is NSNull)
    }

    @Test(
        "the v1 plain filter reads the Python DSL and Go's flat map",
        arguments: [
            ("{\"eq\": {\"name\": \"id\", \"value\": \"x\"}}", ["id": "x"], true),
            ("{\"eq\": {\"name\": \"id\", \"value\": \"x\"}}", ["id": "y"], false),
            (
                "{\"and\": [{\"eq\": {\"name\": \"a\", \"value\": \"1\"}}, {\"eq\": {\"name\": \"b\", \"value\": \"2\"}}]}",
                ["a": "1", "b": "2"], true
            ),
            (
                "{\"and\": [{\"eq\": {\"name\": \"a\", \"value\": \"1\"}}, {\"eq\": {\"name\": \"b\", \"value\": \"2\"}}]}",
                ["a": "1"], false
            ),
            (
                "{\"or\": [{\"eq\": {\"name\": \"a\", \"value\": \"1\"}}, {\"eq\": {\"name\": \"b\", \"value\": \"2\"}}]}",
                ["b": "2"], true
            ),
            ("{\"not\": {\"eq\": {\"name\": \"a\", \"value\": \"1\"}}}", ["a": "1"], false),
            ("{\"a\": \"1\", \"b\": \"2\"}", ["a": "1", "b": "2"], true),
            ("{\"a\": \"1\", \"b\": \"2\"}", ["a": "1", "b": "3"], false),
        ] as [(String, [String: String], Bool)]
    )
    func plainFilter(filter: String, plain: [String: String], expected: Bool) throws {
        let decoded = try JSONDecoder().decode(PlainFilter.self, from: Data(filter.utf8))
        #expect(decoded.matches(plain) == expected)
    }

    @Test("a Python v1 search body decodes, every key included")
    func pythonSearch() throws {
        let body = """
            {"count": 100, "after_index": 0, "include_data": true, "writer_ids": ["W"], "user_ids": [], "record_ids": [],
             "content_types": ["type"], "plain": {"eq": {"name": "id", "value": "x"}}, "include_all_writers": false}
            """
        let request = try JSONDecoder().decode(SearchRequest.self, from: Data(body.utf8))
        #expect(request.count == 100)
        #expect(request.contentTypes == ["type"])
        #expect(request.plain == .equals(name: "id", value: "x"))
    }

    @Test("JSONValue keeps integers integral and round-trips nested objects")
    func jsonValue() throws {
        let text = "{\"a\":[1,2.5,true,null,\"s\"],\"b\":{\"c\":-3}}"
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(value), as: UTF8.self) == text)
    }
}
