// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// C2SP tlog-cosignature v1: an independent implementation's cosignatures (Python `cryptography`, OpenSSL's Ed25519)
/// reproduced byte for byte, and every way a cosignature can be wrong refused.
@Suite struct CosignatureTests {
    struct Reference: Decodable {
        struct Case: Decodable {
            let checkpoint: String
            let time: UInt64
            let line: String
        }
        let seed: String
        let name: String
        let verifierKey: String
        let cases: [Case]

        enum CodingKeys: String, CodingKey {
            case seed, name, cases
            case verifierKey = "verifier_key"
        }
    }

    static func reference() throws -> (Reference, Cosigner) {
        let reference = try Vectors.load(Reference.self, "keylog/cosignature.json")
        let seed = try #require(hexBytes(reference.seed))
        let cosigner = try Cosigner(
            name: reference.name,
            privateKey: try SigningPrivateKey(seed: SecureBytes(copying: seed))
        )
        return (reference, cosigner)
    }

    /// `text` as a note carrying `lines` (after a log signature of no known key).
    static func note(_ text: String, _ lines: [String]) throws -> SignedNote {
        let logLine = "— example.com/log " + Data(repeating: 7, count: 68).base64EncodedString()
        return try SignedNote(parsing: text + "\n" + ([logLine] + lines).map { $0 + "\n" }.joined())
    }

    @Test("the reference cosignatures: same key, same lines byte for byte, each verifying with its time")
    func reference() throws {
        let (reference, cosigner) = try Self.reference()
        #expect(cosigner.key.description == reference.verifierKey)
        let parsed = try CosignerKey(reference.verifierKey)
        #expect(parsed == cosigner.key)
        for item in reference.cases {
            let signature = try cosigner.cosignature(on: item.checkpoint, time: item.time)
            let note = try SignedNote(text: item.checkpoint, signatures: [signature])
            #expect(note.encoded.split(separator: "\n").last.map(String.init) == item.line)
            #expect(try parsed.cosignatureTime(on: try Self.note(item.checkpoint, [item.line])) == item.time)
        }
    }

    @Test(
        "no cosignature is nil; a tampered, truncated, doubled or future-overflowing one is refused; a log key never matches"
    )
    func refusals() throws {
        let (reference, cosigner) = try Self.reference()
        let item = reference.cases[1]
        let key = cosigner.key
        #expect(try key.cosignatureTime(on: try Self.note(item.checkpoint, [])) == nil)
        // Another checkpoint text under the same line.
        let other = item.checkpoint.replacingOccurrences(of: "\n7\n", with: "\n8\n")
        #expect(throws: CryptoError.self) { try key.cosignatureTime(on: try Self.note(other, [item.line])) }
        // A flipped bit in the timestamp, a truncated signature, the line twice.
        var blob = try #require(Data(base64Encoded: String(item.line.split(separator: " ")[2])))
        blob[11] ^= 1
        let flipped = "— \(reference.name) \(blob.base64EncodedString())"
        #expect(throws: CryptoError.self) { try key.cosignatureTime(on: try Self.note(item.checkpoint, [flipped])) }
        let truncated = "— \(reference.name) \(blob.dropLast().base64EncodedString())"
        #expect(throws: CryptoError.self) { try key.cosignatureTime(on: try Self.note(item.checkpoint, [truncated])) }
        #expect(throws: CryptoError.self) {
            try key.cosignatureTime(on: try Self.note(item.checkpoint, [item.line, item.line]))
        }
        #expect(throws: CryptoError.self) { try cosigner.cosignature(on: item.checkpoint, time: UInt64(Int64.max) + 1) }
        // The same key as a log's (type 0x01) has another key ID: its signatures are not cosignatures.
        let asLog = try NoteVerifierKey(name: reference.name, publicKey: key.publicKey)
        #expect(asLog.keyID != key.keyID)
        #expect(throws: CryptoError.self) { try CosignerKey(asLog.description) }
        for bad in ["", "w+00000000+AA==", reference.verifierKey.replacingOccurrences(of: "+eb", with: "+ec")] {
            #expect(throws: CryptoError.self) { try CosignerKey(bad) }
        }
    }
}
