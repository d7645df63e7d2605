// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomServer
import StrongroomWire
import StrongroomWitness

/// What the SDK reads back from a server or a file.
enum FuzzFormats {
    static func plainJSON(_ input: UnsafeBufferPointer<UInt8>) {
        _ = RecordResponse.plainJSON(input)
    }

    static func eak(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? EncryptedAccessKey(wireFormat: input.text)
    }

    static func encryptedField(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? EncryptedField(wireFormat: input.text)
    }

    /// The key of the e3db-python file vectors the seed corpus holds, so mutations of a valid file reach the
    /// stream's decryption as well as the header.
    private static let accessKey = (try? Base64URL.decode("aejFJgXtFwdYTxeuWwOJnWvRf-U8kVcweWcn2SkaHXM")).flatMap {
        try? AccessKey(rawRepresentation: SecureBytes(copying: $0))
    }

    /// The file arrives in pieces of a size the input's first byte picks, as a network read would cut it.
    static func fileFormat(_ input: UnsafeBufferPointer<UInt8>) {
        guard let first = input.first, let accessKey else { return }
        let piece = Int(first) + 1
        var decryptor = FileDecryptor(accessKey: accessKey)
        var output: [UInt8] = []
        var offset = 1
        while offset < input.count {
            let end = min(offset + piece, input.count)
            do {
                try decryptor.update(
                    UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[offset..<end])),
                    into: &output
                )
            } catch {
                return
            }
            output.removeAll(keepingCapacity: true)
            offset = end
        }
        _ = try? decryptor.finalize(into: &output)
    }

    /// An age file arriving in pieces of a size the input's first byte picks, opened with the identities of C2SP's
    /// CCTV age vectors (the seed corpus holds those files), so mutations reach the stanzas, the MAC and the stream.
    /// The identities are made for each input (a static one is reported as a leak by LeakSanitizer).
    static func age(_ input: UnsafeBufferPointer<UInt8>) {
        guard let first = input.first,
            let postQuantum = try? AgeIdentity(
                "AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG"
            ),
            let classical = try? AgeIdentity(
                "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"
            )
        else { return }
        let piece = (Int(first) + 1) * 64
        var decryptor = AgeDecryptor(identities: [postQuantum, classical])
        var offset = 1
        while offset < input.count {
            let end = min(offset + piece, input.count)
            guard (try? decryptor.update(Data(UnsafeBufferPointer(rebasing: input[offset..<end])))) != nil else {
                return
            }
            offset = end
        }
        _ = try? decryptor.finish()
    }

    /// The Go reference verifier key, so mutations of its note reach the signature check (made for each input: a
    /// lazily made static one is reported as a leak by LeakSanitizer).
    private static var noteKey: NoteVerifierKey? {
        try? NoteVerifierKey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")
    }

    /// The cosigner key of the cosignature vectors (Scripts/vectors/cosignature_vectors.py).
    private static var cosignerKey: CosignerKey? {
        try? CosignerKey("witness.example/w1+eb762cc2+BNdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea")
    }

    /// Mode 0: a signed note, verified; 1: a checkpoint; 2: a verifier key; 3 and 4: an inclusion or consistency
    /// proof — two little-endian sizes (8 bytes each), then 32-byte hashes: the leaf or old root, the root, the proof;
    /// 5: a log entry; 6: a cosigned note and a cosigner key; 7: a witness's add-checkpoint request.
    static func keylog(_ input: UnsafeBufferPointer<UInt8>) {
        guard let mode = input.first else { return }
        let rest = UnsafeBufferPointer(rebasing: input.dropFirst())
        switch mode % 8 {
        case 6:
            _ = try? CosignerKey(rest.text)
            guard let note = try? SignedNote(parsing: rest.text), let key = cosignerKey else { return }
            _ = try? key.cosignatureTime(on: note)
        case 7: _ = try? KeyLogWitness.parse(rest.text)
        case 0:
            guard let note = try? SignedNote(parsing: rest.text) else { return }
            _ = try? note.verified(by: noteKey.map { [$0] } ?? [])
            _ = try? LogCheckpoint(text: note.text)
        case 1: _ = try? LogCheckpoint(text: rest.text)
        case 2: _ = try? NoteVerifierKey(rest.text)
        case 5: _ = try? KeyLogEntry(decoding: rest)
        default:
            guard rest.count >= 16 + 64 else { return }
            let bytes = Array(rest)
            let first = bytes[0..<8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let second = bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let hashes = stride(from: 16, to: bytes.count - 31, by: 32).compactMap {
                MerkleHash(bytes: bytes[$0..<$0 + 32])
            }
            guard hashes.count >= 2 else { return }
            let proof = Array(hashes.dropFirst(2))
            if mode % 8 == 3 {
                _ = try? MerkleProof.verifyInclusion(
                    leaf: hashes[0],
                    index: first,
                    treeSize: second,
                    proof: proof,
                    root: hashes[1]
                )
            } else {
                _ = try? MerkleProof.verifyConsistency(
                    oldSize: first,
                    newSize: second,
                    oldRoot: hashes[0],
                    newRoot: hashes[1],
                    proof: proof
                )
            }
        }
    }
}
