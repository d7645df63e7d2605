// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// Record fields against the Python SDK (`Vectors/e3db-python/fields.json`).
@Suite struct FieldCipherTests {
    struct File: Decodable {
        struct Case: Decodable { let value, dataKey, valueNonce, dataKeyNonce, wire: String }
        let accessKey: String
        let cases: [Case]
    }

    let file: File
    let accessKey: AccessKey

    init() throws {
        file = try Vectors.load(File.self, "e3db-python/fields.json")
        accessKey = try AccessKey(rawRepresentation: Base64URL.decodeSecret(file.accessKey))
    }

    @Test("opens every field the Python SDK sealed")
    func decryptsPython() throws {
        for item in file.cases {
            #expect(try FieldCipher.decrypt(EncryptedField(wireFormat: item.wire), with: accessKey) == item.value)
        }
    }

    @Test("seals byte-identical fields given the same random draws")
    func encryptsLikePython() throws {
        for item in file.cases {
            let replay = ReplayRandomSource([
                try b64(item.dataKey), try b64(item.valueNonce), try b64(item.dataKeyNonce),
            ])
            #expect(FieldCipher.encrypt(item.value, with: accessKey, using: replay).wireFormat == item.wire)
            #expect(replay.isExhausted)
        }
    }

    @Test("wire parsing round-trips")
    func wireRoundTrip() throws {
        for item in file.cases { #expect(try EncryptedField(wireFormat: item.wire).wireFormat == item.wire) }
    }

    @Test("maps of fields round-trip and equal values encrypt differently")
    func maps() throws {
        let key = AccessKey()
        let encrypted = FieldCipher.encrypt(fields: ["a": "same", "b": "same"], with: key)
        #expect(encrypted["a"] != encrypted["b"])
        #expect(try FieldCipher.decrypt(fields: encrypted, with: key) == ["a": "same", "b": "same"])
    }

    @Test("a wrong access key is an authentication failure, never other plaintext")
    func wrongKey() throws {
        let wire = try #require(file.cases.last).wire
        let error = #expect(throws: CryptoError.self) {
            try FieldCipher.decrypt(EncryptedField(wireFormat: wire), with: AccessKey())
        }
        #expect(error?.code == .authenticationFailed)
    }

    @Test(
        "malformed wire forms are format errors",
        arguments: [
            "", "a.b.c", "a.b.c.d.e", "!!!.b.c.d", "AAAA.AAAA.AAAA.AAAA", "....",
        ]
    )
    func malformed(wire: String) {
        let error = #expect(throws: CryptoError.self) { try EncryptedField(wireFormat: wire) }
        #expect(error?.code == .invalidFormat)
    }
}
