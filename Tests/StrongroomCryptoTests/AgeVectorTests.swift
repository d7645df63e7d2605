// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomTesting
import Testing

@testable import StrongroomCrypto

/// age files against C2SP's CCTV age vectors (`C2SP/CCTV` at `1e3d2860d46e94e777e1b17c7a6f2436387e3ecc`, CC0): every
/// vector with X25519 and post-quantum (`mlkem768x25519`, the `hybrid*` files) identities, copied unchanged — the
/// passphrase (scrypt) and armored ones are left out, as Strongroom writes neither. A vector marked `compressed: zlib`
/// is inflated with Python's `zlib` (the Python test environment; CI has it).
@Suite struct AgeVectorTests {
    struct Vector {
        var name: String
        var expect: String
        var payloadDigest: String?
        var fileKey: Data
        var identities: [String]
        var file: Data
    }

    static func vectors() async throws -> [Vector] {
        let folder = try Vectors.directory.appending(path: "cctv-age")
        var result: [Vector] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let raw = try Data(contentsOf: folder.appending(path: name))
            let separator = try #require(raw.firstRange(of: Data("\n\n".utf8)), "\(name) has no blank line")
            let head = String(decoding: raw[..<separator.lowerBound], as: UTF8.self)
            var file = Data(raw[separator.upperBound...])
            var fields: [(String, String)] = []
            for line in head.split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2 { fields.append((parts[0], parts[1])) }
            }
            let value = { (key: String) in fields.first { $0.0 == key }?.1 }
            if value("compressed") == "zlib" { file = try await inflate(file, name: name) }
            let fileKey = try #require(value("file key"), "\(name) names no file key")
            result.append(
                Vector(
                    name: name,
                    expect: try #require(value("expect")),
                    payloadDigest: value("payload"),
                    fileKey: Data(try #require(hexBytes(fileKey))),
                    identities: fields.filter { $0.0 == "identity" }.map(\.1),
                    file: file
                )
            )
        }
        return result
    }

    static func inflate(_ data: Data, name: String) async throws -> Data {
        let input = FileManager.default.temporaryDirectory.appending(path: "age-\(UUID().uuidString).z")
        let output = input.appendingPathExtension("out")
        try data.write(to: input)
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        let script = "import sys,zlib; open(sys.argv[2],'wb').write(zlib.decompress(open(sys.argv[1],'rb').read()))"
        let outcome = try await PythonSDK.run(["-c", script, input.path, output.path])
        try #require(outcome.status == 0, "inflating \(name): \(outcome.output)")
        return try Data(contentsOf: output)
    }

    /// What decrypting `vector` gives, whole and fed in pieces of `piece` bytes.
    static func decrypt(_ file: Data, _ identities: [AgeIdentity], piece: Int) throws -> Data {
        var decryptor = AgeDecryptor(identities: identities)
        var plaintext = Data()
        var start = file.startIndex
        while start < file.endIndex {
            let end = min(start + piece, file.endIndex)
            plaintext += try decryptor.update(file[start..<end])
            start = end
        }
        plaintext += try decryptor.finish()
        return plaintext
    }

    @Test("every X25519 and post-quantum CCTV vector: success, no match, header, HMAC and payload failures as marked")
    func cctv() async throws {
        try #require(PythonSDK.isAvailableOrRequired, Comment(rawValue: PythonSDK.missingMessage))
        let vectors = try await Self.vectors()
        #expect(vectors.count == 85)
        #expect(vectors.filter { $0.name.hasPrefix("hybrid") }.count == 18)
        var outcomes: [String: Int] = [:]
        for vector in vectors {
            let identities = try vector.identities.map { try AgeIdentity($0) }
            outcomes[vector.expect, default: 0] += 1
            for piece in [vector.file.count + 1, 1_000] {
                let result = Result { try Self.decrypt(vector.file, identities, piece: piece) }
                switch (vector.expect, result) {
                case ("success", .success(let plaintext)):
                    #expect(Data(SHA256.hash(data: plaintext)).hexString == vector.payloadDigest, "\(vector.name)")
                case ("success", .failure(let error)):
                    Issue.record("\(vector.name): \(error)")
                case (_, .success):
                    Issue.record("\(vector.name): decrypted, but \(vector.expect) was expected")
                case (let expected, .failure(let error)):
                    let code = (error as? StrongroomCrypto.CryptoError)?.code
                    let allowed: [StrongroomCrypto.CryptoError.Code] =
                        switch expected {
                        case "no match": [.noMatchingIdentity]
                        case "header failure": [.invalidFormat, .invalidKey, .truncated]  // cut inside the header
                        case "HMAC failure": [.authenticationFailed]
                        default: [.authenticationFailed, .truncated, .invalidFormat]  // payload failure
                        }
                    #expect(code.map(allowed.contains) == true, "\(vector.name): \(expected), got \(error)")
                    if expected == "payload failure" || expected == "HMAC failure" {
                        // Past the header: it parses, and its stanzas give the file key.
                        #expect(throws: Never.self, "\(vector.name)") { _ = try AgeHeader.parse(vector.file) }
                    }
                }
            }
        }
        #expect(
            outcomes == ["success": 18, "no match": 8, "header failure": 40, "HMAC failure": 1, "payload failure": 18]
        )
    }

    @Test("the success vectors' headers re-encode to their bytes, and their payloads re-seal under the file key")
    func roundTrips() async throws {
        try #require(PythonSDK.isAvailableOrRequired, Comment(rawValue: PythonSDK.missingMessage))
        for vector in try await Self.vectors() where vector.expect == "success" {
            let (header, length) = try AgeHeader.parse(vector.file)
            #expect(header.encoded == vector.file.prefix(length), "\(vector.name)")
            let fileKey = SecureBytes(copying: vector.fileKey)
            #expect(try header.isAuthentic(under: fileKey), "\(vector.name)")
            let nonce = vector.file[(vector.file.startIndex + length)...].prefix(AgePayloadKey.nonceByteCount)
            let plaintext = try AgeFile.decrypt(vector.file, with: vector.identities.map { try AgeIdentity($0) })
            var sealer = AgePayloadSealer(key: try AgePayloadKey(fileKey: fileKey, nonce: Data(nonce)))
            var sealed = Data()
            var start = plaintext.startIndex
            repeat {
                let end = min(start + AgePayloadKey.chunkByteCount, plaintext.endIndex)
                sealed += try sealer.seal(plaintext[start..<end], isLast: end == plaintext.endIndex)
                start = end
            } while start < plaintext.endIndex
            #expect(sealed == vector.file.suffix(from: vector.file.startIndex + length + nonce.count), "\(vector.name)")
        }
    }
}
