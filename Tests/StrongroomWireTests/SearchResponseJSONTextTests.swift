// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import StrongroomWire

/// `SearchResponse.jsonText()` and `RecordRewrapRequest.jsonText` are hand-written JSON: each must decode to the same value and carry the same members as
/// `JSONEncoder` writes, whatever the strings hold, with or without data, keys and signatures.
@Suite struct SearchResponseJSONTextTests {
    static let keys: [AccessKeyResponse?] = [
        nil,
        AccessKeyResponse(
            eak: "c2VhbGVk.bm9uY2U",
            authorizerID: "a1",
            authorizerPublicKey: PublicKeyObject(curve25519: "cHVibGlj"),
            signerID: "s1",
            signerSigningKey: SigningKeyObject(ed25519: "c2lnbmluZw")
        ),
        AccessKeyResponse(
            eak: "",
            hybridEAK: "aHlicmlk",
            authorizerID: "a \" 2",
            authorizerPublicKey: PublicKeyObject(),
            signerID: nil,
            signerSigningKey: nil
        ),
    ]

    static let responses: [SearchResponse] = [
        SearchResponse(results: [], lastIndex: 0),
        SearchResponse(
            results: RecordMetaJSONTextTests.metas.enumerated().map { index, meta in
                let awkward = RecordMetaJSONTextTests.awkward[index]
                return SearchResult(
                    meta: meta,
                    recordData: index % 3 == 0 ? nil : (index % 3 == 1 ? [:] : [awkward: awkward, "f": "a.b.c.d"]),
                    accessKey: keys[index % keys.count],
                    recordSignature: index % 2 == 0 ? nil : awkward
                )
            },
            lastIndex: Int64.max
        ),
    ]

    @Test("decodes to the same answer and carries the same members", arguments: responses)
    func sameAnswer(response: SearchResponse) throws {
        let text = try response.jsonText()
        #expect(try JSONDecoder().decode(SearchResponse.self, from: Data(text.utf8)) == response)
        try expectSameMembers(text, as: response)
    }

    @Test("a bulk re-wrap body decodes to the same request and carries the same members")
    func rewrapRequest() throws {
        let awkward = RecordMetaJSONTextTests.awkward
        for request in [
            RecordRewrapRequest(generation: 1, records: []),
            RecordRewrapRequest(
                generation: Int(Int32.max),
                records: awkward.enumerated().map { index, text in
                    .init(recordID: text, version: "v\(index)", data: index == 0 ? [:] : [text: text, "f": "a.b.c.d"])
                }
            ),
        ] {
            let text = request.jsonText
            #expect(try JSONDecoder().decode(RecordRewrapRequest.self, from: Data(text.utf8)) == request)
            try expectSameMembers(text, as: request)
        }
    }
}
