// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import Testing

/// C2SP signed notes and checkpoints: the Go reference implementation's key and note reproduced byte for byte, its
/// malformed keys refused, and every way a note or checkpoint can be wrong refused with a typed error.
@Suite struct SignedNoteTests {
    struct Reference: Decodable {
        let signerKey: String
        let verifierKey: String
        let text: String
        let note: String
        let badVerifierKeys: [String]
    }

    static func reference() throws -> Reference { try Vectors.load(Reference.self, "keylog/signed-note.json") }

    /// The Go signer key's seed: base64 of 0x01 ‖ seed after `PRIVATE+KEY+name+id+`.
    static func signer(_ reference: Reference) throws -> NoteSigner {
        let parts = reference.signerKey.split(separator: "+", maxSplits: 4)
        let blob = try #require(Data(base64Encoded: String(parts[4])))
        try #require(blob.count == 33 && blob.first == 0x01)
        let key = try SigningPrivateKey(seed: SecureBytes(copying: blob.dropFirst()))
        return try NoteSigner(name: String(parts[2]), key: key)
    }

    @Test("the Go reference key and note: same verifier key, same signature byte for byte, and it verifies")
    func goReference() throws {
        let reference = try Self.reference()
        let signer = try Self.signer(reference)
        #expect(signer.verifierKey.description == reference.verifierKey)
        let verifier = try NoteVerifierKey(reference.verifierKey)
        #expect(verifier == signer.verifierKey && verifier.keyID == 0xc74f_20a3)
        #expect(try signer.sign(reference.text).encoded == reference.note)
        let note = try SignedNote(parsing: reference.note)
        #expect(note.text == reference.text && note.encoded == reference.note)
        #expect(try note.verified(by: [verifier]) == [verifier])
        for bad in reference.badVerifierKeys {
            #expect(throws: CryptoError.self, "\(bad)") { try NoteVerifierKey(bad) }
        }
    }

    /// The code of the error `body` throws, or nil.
    static func code(_ body: () throws -> Void) -> CryptoError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? CryptoError)?.code
        }
    }

    @Test("verification: another key is ignored, a tampered text or signature and a key that signs twice are refused")
    func verification() throws {
        let reference = try Self.reference()
        let peter = try NoteVerifierKey(reference.verifierKey)
        let other = try NoteSigner(name: "witness.example", key: SigningPrivateKey())
        let note = try SignedNote(parsing: reference.note)
        // A cosignature by a key the verifier does not know is ignored; both verify when both are known.
        let cosigned = try SignedNote(
            text: note.text,
            signatures: note.signatures + [try other.signature(for: note.text)]
        )
        #expect(try cosigned.verified(by: [peter]) == [peter])
        #expect(try SignedNote(parsing: cosigned.encoded).verified(by: [peter, other.verifierKey]).count == 2)
        #expect(Self.code { _ = try note.verified(by: [other.verifierKey]) } == .invalidSignature, "no known key")
        let altered = try SignedNote(
            text: note.text.replacingOccurrences(of: "answer", with: "Answer"),
            signatures: note.signatures
        )
        #expect(Self.code { _ = try altered.verified(by: [peter]) } == .invalidSignature)
        var signature = note.signatures[0]
        signature.bytes[0] ^= 1
        let forged = try SignedNote(text: note.text, signatures: [signature])
        #expect(Self.code { _ = try forged.verified(by: [peter]) } == .invalidSignature)
        let twice = try SignedNote(text: note.text, signatures: note.signatures + note.signatures)
        #expect(Self.code { _ = try twice.verified(by: [peter]) } == .invalidSignature)
    }

    @Test("malformed notes are invalidFormat: no blank line, no signature, bad lines, control characters, bounds")
    func malformedNotes() throws {
        let reference = try Self.reference()
        let line = String(reference.note.split(separator: "\n").last!)
        let cases: [String: String] = [
            "no blank line": reference.text + line + "\n",
            "no signature": reference.text + "\n",
            "no final newline": String(reference.note.dropLast()),
            "no em dash": reference.text + "\n" + line.replacingOccurrences(of: "— ", with: "- ") + "\n",
            "not base64": reference.text + "\n— PeterNeumann !!!\n",
            "key ID only": reference.text + "\n— PeterNeumann AAAAAA==\n",
            "three fields": reference.text + "\n" + line + " more\n",
            "empty signature line": reference.note + "\n",
            "a control character": "bell \u{7}\n\n" + line + "\n",
            "too many signatures": reference.text + "\n" + String(repeating: line + "\n", count: 101),
            "too large": String(repeating: "a", count: 1 << 20) + "\n\n" + line + "\n",
        ]
        for (name, note) in cases {
            #expect(Self.code { _ = try SignedNote(parsing: note) } == .invalidFormat, "\(name)")
        }
        #expect(Self.code { _ = try NoteSigner(name: "a b", key: SigningPrivateKey()) } == .invalidFormat)
        #expect(Self.code { _ = try NoteSigner(name: "a+b", key: SigningPrivateKey()) } == .invalidFormat)
        #expect(Self.code { _ = try NoteSigner(name: "", key: SigningPrivateKey()) } == .invalidFormat)
    }

    @Test("checkpoints: parsed and written back exactly; a bad size, root or line count is invalidFormat")
    func checkpoints() throws {
        let root = MerkleHash.leaf(Data("root".utf8))
        let base64 = Data(root.bytes).base64EncodedString()
        let text = "strongroom.example/keylog\n42\n\(base64)\nextension line\n"
        let checkpoint = try LogCheckpoint(text: text)
        #expect(
            checkpoint
                == LogCheckpoint(
                    origin: "strongroom.example/keylog",
                    size: 42,
                    root: root,
                    extensions: ["extension line"]
                )
        )
        #expect(checkpoint.text == text)
        #expect(try LogCheckpoint(text: "o\n0\n\(Data(MerkleHash.empty.bytes).base64EncodedString())\n").size == 0)
        let bad = [
            "o\n42\n\(base64)", "o\n42\n", "o\n042\n\(base64)\n", "o\n+42\n\(base64)\n", "o\n-1\n\(base64)\n",
            "o\n9223372036854775808\n\(base64)\n", "o\n18446744073709551616\n\(base64)\n", "o\n42\nAAAA\n",
            "o\n42\n\(base64.dropLast())\n", "\n42\n\(base64)\n", "o\n42\n\(base64)\n\n",
            "o\n42\n\(base64)\n" + String(repeating: "x\n", count: 17), "o\n4 2\n\(base64)\n",
        ]
        for text in bad {
            #expect(Self.code { _ = try LogCheckpoint(text: text) } == .invalidFormat, "\(text.prefix(40))")
        }
    }
}
