// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

@Suite struct KDFTests {
    @Test("HKDF-SHA256 matches RFC 5869 test case 1")
    func hkdfRFC5869() throws {
        let ikm = SecureBytes(copying: [UInt8](repeating: 0x0B, count: 22))
        let salt = Data((0x00...0x0C).map { UInt8($0) })
        let info = Data((0xF0...0xF9).map { UInt8($0) })
        let okm = try HKDFSHA256.deriveKey(from: ikm, salt: salt, info: info, byteCount: 42)
        let hex = okm.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test("different labels give different subkeys")
    func labels() throws {
        let root = SecureRandom.bytes(count: 32)
        #expect(try HKDFSHA256.deriveKey(from: root, label: "db") != HKDFSHA256.deriveKey(from: root, label: "blob"))
    }

    @Test(
        "Argon2id rejects parameters outside the caps and bad salts",
        arguments: [
            Argon2id.Parameters(iterations: 1, memoryBytes: 64 << 20),
            Argon2id.Parameters(iterations: 2, memoryBytes: 1 << 20),
            Argon2id.Parameters(iterations: 11, memoryBytes: 64 << 20),
            Argon2id.Parameters(iterations: 2, memoryBytes: 2 << 30),
        ]
    )
    func caps(parameters: Argon2id.Parameters) {
        let error = #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(fromPassword: "pw", salt: Data(count: 16), parameters: parameters)
        }
        #expect(error?.code == .invalidParameters)
    }

    @Test("Argon2id needs a 16-byte salt")
    func saltLength() {
        #expect(throws: CryptoError.self) {
            try Argon2id.deriveKey(fromPassword: "pw", salt: Data(count: 8), parameters: .minimum)
        }
    }

    @Test("the presets lie inside the accepted range")
    func presets() throws {
        try Argon2id.Parameters.interactive.validate()
        try Argon2id.Parameters.moderate.validate()
        try Argon2id.Parameters.sensitive.validate()
    }
}
