// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomShield
import StrongroomTesting
import Testing

/// The file protector: keys made in the keychain, streamed files, small secrets, and every way a protected file
/// can be wrong is a typed error with no output.
@Suite struct FileProtectorTests {
    private func keychain(_ folder: URL) throws -> Keychain {
        try Keychain.encryptedFile(at: folder.appending(path: "k.keychain"), passphrase: "p", parameters: .minimum)
    }

    @Test("a multi-chunk file round-trips; the output is 0600, new only, and holds no plaintext")
    func roundTrip() async throws {
        try await withTemporaryDirectory { folder in
            let protector = try FileProtector(keychain: try keychain(folder), key: "assets")
            let marker = Data("STRONGROOM-PLAINTEXT-MARKER".utf8)
            var plain = Data()
            for _ in 0..<40_000 { plain.append(marker) }  // ~1 MiB: several chunks
            let source = folder.appending(path: "plain.bin")
            try plain.write(to: source)
            let protected = folder.appending(path: "plain.bin.protected")
            try await protector.protect(contentsOf: source, to: protected)
            let bytes = try Data(contentsOf: protected)
            #expect(bytes.range(of: marker) == nil)
            let mode = try FileManager.default.attributesOfItem(atPath: protected.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let exists = await #expect(throws: ShieldError.self) {
                try await protector.protect(contentsOf: source, to: protected)
            }
            #expect(exists?.code == .exists)

            // The key stays in the keychain: a second protector opened from it reads the file.
            let again = try FileProtector(keychain: try keychain(folder), key: "assets", createsKey: false)
            let back = folder.appending(path: "back.bin")
            #expect(try await again.unprotect(contentsOf: protected, to: back) == Int64(plain.count))
            #expect(try Data(contentsOf: back) == plain)
            let keychainBytes = try Data(contentsOf: folder.appending(path: "k.keychain"))
            #expect(keychainBytes.range(of: Data("strongroom.protector".utf8)) == nil)
        }
    }

    @Test("a flipped byte, a truncated file and another key: typed errors, nothing written")
    func refusals() async throws {
        try await withTemporaryDirectory { folder in
            let chain = try keychain(folder)
            let protector = try FileProtector(keychain: chain, key: "a")
            let source = folder.appending(path: "s")
            try Data(repeating: 7, count: 300_000).write(to: source)
            let protected = folder.appending(path: "p")
            try await protector.protect(contentsOf: source, to: protected)
            let good = try Data(contentsOf: protected)

            var flipped = good
            flipped[flipped.count / 2] ^= 0x01
            let truncated = good.prefix(good.count - 100)
            // A cut inside a chunk fails that chunk's authentication; a cut at a chunk boundary is `truncated`.
            let cases: [(Data, FileProtector, Set<ShieldError.Code>)] = [
                (flipped, protector, [.authenticationFailed]),
                (truncated, protector, [.truncated, .authenticationFailed]),
                (good.prefix(40), protector, [.truncated, .invalidFormat]),
                (good, try FileProtector(keychain: chain, key: "b"), [.authenticationFailed]),
            ]
            for (index, (input, reader, expected)) in cases.enumerated() {
                let file = folder.appending(path: "case-\(index)")
                try input.write(to: file)
                let output = folder.appending(path: "out-\(index)")
                let error = await #expect(throws: ShieldError.self) {
                    try await reader.unprotect(contentsOf: file, to: output)
                }
                #expect(error.map { expected.contains($0.code) } == true, "case \(index): \(String(describing: error))")
                #expect(!FileManager.default.fileExists(atPath: output.path))
            }
            let missing = #expect(throws: ShieldError.self) {
                try FileProtector(keychain: chain, key: "never-made", createsKey: false)
            }
            #expect(missing?.code == .keyUnavailable)
        }
    }

    @Test("small secrets: protect(_:) and back; altered, foreign-key and non-protected input are refused")
    func smallSecrets() async throws {
        try await withTemporaryDirectory { folder in
            let chain = try keychain(folder)
            let protector = try FileProtector(keychain: chain, key: "tokens")
            let token = Data("sk-live-0123456789".utf8)
            let sealed = try protector.protect(token)
            #expect(sealed.range(of: token) == nil)
            #expect(try protector.unprotect(sealed).withUnsafeBytes { Data($0) } == token)
            var altered = sealed
            altered[altered.count - 1] ^= 0x80
            #expect(throws: ShieldError.self) { try protector.unprotect(altered) }
            let other = try FileProtector(keychain: chain, key: "other")
            let foreign = #expect(throws: ShieldError.self) { try other.unprotect(sealed) }
            #expect(foreign?.code == .authenticationFailed)
            let plain = #expect(throws: ShieldError.self) { try protector.unprotect(Data("hello".utf8)) }
            #expect(plain?.code == .invalidFormat)
        }
    }

    @Test("build-time assets: protect with a key file, import it into the keychain, unprotect from the keychain")
    func buildTimeAssets() async throws {
        try await withTemporaryDirectory { folder in
            let keyFile = folder.appending(path: "assets.key")
            try AtomicFile.write(
                Data((Base64URL.encode(AccessKey().rawRepresentation) + "\n").utf8),
                to: keyFile.path,
                mode: .createNew
            )
            let asset = folder.appending(path: "config.json")
            try Data(#"{"api":"https://example.com"}"#.utf8).write(to: asset)
            let shipped = folder.appending(path: "config.json.protected")
            try await FileProtector(keyFile: keyFile).protect(contentsOf: asset, to: shipped)

            let chain = try keychain(folder)
            try FileProtector.importKey(from: keyFile, into: chain, name: "assets")
            let runtime = try FileProtector(keychain: chain, key: "assets", createsKey: false)
            let restored = folder.appending(path: "restored.json")
            try await runtime.unprotect(contentsOf: shipped, to: restored)
            #expect(try Data(contentsOf: restored) == Data(contentsOf: asset))
            let twice = #expect(throws: ShieldError.self) {
                try FileProtector.importKey(from: keyFile, into: chain, name: "assets")
            }
            #expect(twice?.code == .keyUnavailable)
        }
    }
}
