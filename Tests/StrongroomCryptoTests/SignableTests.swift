// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// The canonical serializer and document signatures (`Vectors/canonical/signable.json`: Python's
/// `json.dumps(ensure_ascii=False)` escaping, which equals `JSON.stringify`'s, and PyNaCl Ed25519).
@Suite struct SignableTests {
    enum JSONValue: Decodable {
        case null, bool(Bool), integer(Int64), string(String), array([JSONValue]), object([String: JSONValue])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else if let value = try? container.decode([JSONValue].self) {
                self = .array(value)
            } else {
                self = .object(try container.decode([String: JSONValue].self))
            }
        }

        var signable: SignableValue {
            switch self {
            case .null: .null
            case .bool(let value): .bool(value)
            case .integer(let value): .integer(value)
            case .string(let value): .string(value)
            case .array(let values): .array(values.map(\.signable))
            case .object(let members): .object(members.mapValues(\.signable))
            }
        }
    }

    struct File: Decodable {
        struct Case: Decodable {
            let name, canonical, signature: String
            let value: JSONValue
        }
        struct Record: Decodable {
            let writerID, userID, type, canonical, signature: String
            let plain, data: [String: String]
        }
        let privateSigningKey, publicSigningKey: String
        let cases: [Case]
        let record: Record
    }

    let file: File
    let key: SigningPrivateKey

    init() throws {
        file = try Vectors.load(File.self, "canonical/signable.json")
        key = try SigningPrivateKey(base64URLEncoded: file.privateSigningKey)
    }

    @Test("serializes exactly as the reference and signs the same bytes")
    func canonicalForms() throws {
        for item in file.cases {
            let value = item.value.signable
            #expect(value.canonicalSerialization == item.canonical, "\(item.name)")
            #expect(Base64URL.encode(key.signature(for: value)) == item.signature, "\(item.name)")
            try key.publicKey.verify(try b64(item.signature), for: value)
        }
    }

    @Test("record signatures cover meta then data, as every official SDK signs them")
    func recordInfo() throws {
        let record = file.record
        let info = RecordInfo(
            writerID: try #require(UUID(uuidString: record.writerID)),
            userID: try #require(UUID(uuidString: record.userID)),
            type: record.type,
            plain: record.plain,
            data: record.data
        )
        #expect(info.canonicalSerialization == record.canonical)
        let signed = SignedDocument(signing: info, with: key)
        #expect(Base64URL.encode(signed.signature) == record.signature)
        try signed.verify(with: key.publicKey)
    }

    @Test("a changed document or signature fails verification")
    func tampered() throws {
        let document: SignableValue = ["amount": 100, "to": "alice"]
        let signed = SignedDocument(signing: document, with: key)
        let changed = SignedDocument(
            document: ["amount": 1000, "to": "alice"] as SignableValue,
            signature: signed.signature
        )
        #expect(throws: CryptoError.self) { try changed.verify(with: key.publicKey) }
        var signature = signed.signature
        signature[3] ^= 1
        let error = #expect(throws: CryptoError.self) {
            try SignedDocument(document: document, signature: signature).verify(with: key.publicKey)
        }
        #expect(error?.code == .invalidSignature)
        #expect(throws: CryptoError.self) { try signed.verify(with: SigningPrivateKey().publicKey) }
    }

    @Test("a JSON document becomes signable as the CLI reads it: integers within ±2^53, fractions refused")
    func fromJSON() throws {
        let document: StrongroomCore.JSONValue = [
            "n": 9_007_199_254_740_992, "list": [true, .null, "s", -3], "nested": ["x": 1],
        ]
        let signable = try SignableValue(json: document)
        #expect(
            signable
                == .object([
                    "n": .integer(9_007_199_254_740_992),
                    "list": .array([.bool(true), .null, .string("s"), .integer(-3)]),
                    "nested": .object(["x": .integer(1)]),
                ])
        )
        for refused: StrongroomCore.JSONValue in [
            1.5, .number(9_007_199_254_740_994), ["deep": [.number(-0.25)]], .number(.infinity),
        ] {
            #expect(throws: CryptoError.self, "\(refused)") { try SignableValue(json: refused) }
        }
    }
}
