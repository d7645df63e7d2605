// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomTesting
import Testing

/// Re-wrapping a file's prologue for a key rotation (docs/design/Revocation.md, "Files"): only the stream key's wrap
/// changes, in place, on the files the Python SDK wrote (`Vectors/e3db-python/files.json`).
@Suite struct FilePrologueRewrapTests {
    @Test("a Python SDK file with its prologue re-wrapped opens under the new key only, every later byte unchanged")
    func rewrapsPythonFiles() throws {
        let vectors = try FileCipherTests()
        let new = AccessKey()
        for item in vectors.file.cases {
            let ciphertext = try [UInt8](Vectors.bytes("e3db-python/" + item.file))
            let prologue = String(decoding: ciphertext.prefix(100), as: UTF8.self)
            guard
                case .rewrapped(let rewrapped) = try FileCipher.rewrapPrologue(
                    prologue,
                    from: [new, vectors.accessKey],
                    to: new
                )
            else {
                Issue.record("nothing re-wrapped")
                continue
            }
            #expect(rewrapped.utf8.count == 100 && rewrapped != prologue && rewrapped.hasPrefix("3."))
            let spliced = Array(rewrapped.utf8) + ciphertext.dropFirst(100)
            #expect(try vectors.decrypt(spliced, with: new) == filePattern(item.plaintextSize))
            #expect(throws: CryptoError.self) { try vectors.decrypt(spliced, with: vectors.accessKey) }
            #expect(try FileCipher.rewrapPrologue(rewrapped, from: [], to: new) == .current)
        }
    }

    @Test("a prologue of another shape, or under none of the keys, is refused")
    func refusals() throws {
        let key = AccessKey()
        let encryptor = FileEncryptor(accessKey: key)
        var output: [UInt8] = []
        _ = encryptor.finalize(into: &output)
        let prologue = String(decoding: output.prefix(100), as: UTF8.self)
        let unopened = #expect(throws: CryptoError.self) {
            try FileCipher.rewrapPrologue(prologue, from: [AccessKey()], to: AccessKey())
        }
        #expect(unopened?.code == .authenticationFailed)
        for bad in [
            "", "3.", String(prologue.dropLast()), "4" + prologue.dropFirst(), prologue + "A",
            prologue.replacingOccurrences(of: "3.", with: "3.AA"), String(repeating: ".", count: 100),
        ] {
            let error = #expect(throws: CryptoError.self) {
                try FileCipher.rewrapPrologue(bad, from: [key], to: AccessKey())
            }
            #expect(error?.code == .invalidFormat, "\(bad)")
        }
    }
}
