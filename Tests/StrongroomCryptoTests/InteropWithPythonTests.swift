// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

/// The other direction of the vectors: Swift seals, signs and encrypts; the official Python SDK (e3db 2.3.0) and
/// PyNaCl open and verify (`Scripts/vectors/check_swift_output.py`).
@Suite(.enabled(if: PythonSDK.isAvailableOrRequired, "\(PythonSDK.missingMessage)"))
struct InteropWithPythonTests {
    struct Output: Encodable {
        struct Fields: Encodable {
            struct Case: Encodable { let value, wire: String }
            let accessKey: String
            let cases: [Case]
        }
        struct EAK: Encodable { let authorizerPublicKey, readerPrivateKey, accessKey, wire: String }
        struct Files: Encodable {
            struct Case: Encodable {
                let path, checksum: String
                let plaintextSize: Int
                let size: Int64
            }
            let accessKey: String
            let cases: [Case]
        }
        struct TSV1Cases: Encodable {
            struct Case: Encodable {
                let method, path, query, nonce, authorization: String
                let timestamp: Int64
            }
            let privateSigningKey, clientID: String
            let cases: [Case]
        }
        struct SignedFieldCase: Encodable { let key, value, signed, publicKey: String }
        struct Document: Encodable { let canonical, signature, publicKey: String }
        let fields: Fields
        let eaks: [EAK]
        let files: Files
        let tsv1: TSV1Cases
        let signedFields: [SignedFieldCase]
        let documents: [Document]
    }

    @Test("the Python SDK opens and verifies everything Swift produced")
    func pythonOpensSwiftOutput() async throws {
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        try await withTemporaryDirectory { directory in
            let output = try await makeOutput(in: directory)
            let path = directory.appending(path: "swift-output.json")
            try JSONEncoder().encode(output).write(to: path)
            let outcome = try await PythonSDK.run([PythonSDK.path("Scripts/vectors/check_swift_output.py"), path.path])
            let (status, text) = (outcome.status, outcome.output)
            #expect(status == 0, "\(text)")
            let checks =
                output.fields.cases.count + output.eaks.count + output.files.cases.count
                + output.tsv1.cases.count + output.signedFields.count + output.documents.count
            #expect(text.contains("\n\(checks) passed, 0 failed"), "\(text)")
        }
    }

    private func makeOutput(in directory: URL) async throws -> Output {
        let accessKey = AccessKey()
        let values = [
            "", "hello", "ünïcödé 🔐", "quote \" backslash \\ newline \n", String(repeating: "z", count: 70_000),
        ]
        let fields = Output.Fields(
            accessKey: Base64URL.encode(accessKey.rawRepresentation),
            cases: values.map { .init(value: $0, wire: FieldCipher.encrypt($0, with: accessKey).wireFormat) }
        )
        let eaks = (0..<3).map { _ in
            let authorizer = EncryptionPrivateKey()
            let reader = EncryptionPrivateKey()
            let key = AccessKey()
            return Output.EAK(
                authorizerPublicKey: authorizer.publicKey.base64URLEncoded,
                readerPrivateKey: reader.base64URLEncoded,
                accessKey: Base64URL.encode(key.rawRepresentation),
                wire: key.sealed(to: reader.publicKey, by: authorizer).wireFormat
            )
        }
        let fileKey = AccessKey()
        var fileCases: [Output.Files.Case] = []
        for size in [0, 10, 65_536, 65_537, 3 * 65_536 + 5] {
            let source = directory.appending(path: "plain-\(size)")
            try Data(filePattern(size)).write(to: source)
            let encrypted = directory.appending(path: "swift-\(size).e3db")
            let summary = try await FileCipher.encrypt(contentsOf: source, to: encrypted, with: fileKey)
            fileCases.append(
                .init(
                    path: encrypted.path,
                    checksum: try #require(summary.checksum),
                    plaintextSize: size,
                    size: summary.size
                )
            )
        }
        let signingKey = SigningPrivateKey()
        let clientID = "0e8eb8c6-839f-46ca-9843-801c539e490f"
        let requests: [(String, String, String)] = [
            ("GET", "/v1/storage/records/abc", ""), ("POST", "/v1/storage/search", ""),
            ("GET", "/v2/storage/notes", "id_string=a b/c&note_id=x"), ("GET", "/q", "z=1&a=2&a=1&empty=&flag"),
            ("PUT", "/v1/storage/access_keys/a/b/c/type%20x", "u=%C3%BC"),
        ]
        let tsv1 = Output.TSV1Cases(
            privateSigningKey: signingKey.base64URLEncoded,
            clientID: clientID,
            cases: requests.enumerated().map { index, request in
                let timestamp = Int64(1_700_000_000 + index)
                let nonce = SecureRandom.uuid().uuidString.lowercased()
                // The query is sent as Python's requests would put it on the wire.
                let query = request.2.replacingOccurrences(of: " ", with: "%20")
                return .init(
                    method: request.0,
                    path: request.1,
                    query: query,
                    nonce: nonce,
                    authorization: TSV1.authorization(
                        for: .init(method: request.0, path: request.1, query: query),
                        clientID: clientID,
                        signingKey: signingKey,
                        timestamp: timestamp,
                        nonce: nonce
                    ),
                    timestamp: timestamp
                )
            }
        )
        let salt = SecureRandom.uuid().uuidString.lowercased()
        let signedFields = [("secret", "data"), ("name", "ünïcödé 🔐"), ("empty", ""), ("semi", "a;b;86;")].map {
            Output.SignedFieldCase(
                key: $0.0,
                value: $0.1,
                signed: SignedField.sign(key: $0.0, value: $0.1, salt: salt, with: signingKey),
                publicKey: signingKey.publicKey.base64URLEncoded
            )
        }
        let documents: [any Signable] = [
            SignableValue.object(["b": 1, "a": ["x", nil, true], "é": "\u{1}\"\\/"]),
            RecordInfo(writerID: UUID(), userID: UUID(), type: "t", plain: ["k": "v"], data: ["f": "🔐"]),
        ]
        return Output(
            fields: fields,
            eaks: eaks,
            files: .init(accessKey: Base64URL.encode(fileKey.rawRepresentation), cases: fileCases),
            tsv1: tsv1,
            signedFields: signedFields,
            documents: documents.map {
                .init(
                    canonical: $0.canonicalSerialization,
                    signature: Base64URL.encode(signingKey.signature(for: $0)),
                    publicKey: signingKey.publicKey.base64URLEncoded
                )
            }
        )
    }
}
