// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import Testing

@testable import StrongroomCrypto

/// age files to X25519 and post-quantum recipients: round trips at the chunk edges, in any pieces and through files,
/// keys in their text forms, and hostile files refused with typed errors before any plaintext.
@Suite struct AgeFileTests {
    static func code(_ body: () throws -> Void) -> StrongroomCrypto.CryptoError.Code? {
        do {
            try body()
            return nil
        } catch {
            return (error as? StrongroomCrypto.CryptoError)?.code
        }
    }

    @Test("round trips at the chunk edges, whole and in pieces, to one or several recipients of a kind")
    func roundTrips() throws {
        let pq = AgeIdentity.generate()
        let other = AgeIdentity.generate()
        let classical = AgeIdentity.generate(postQuantum: false)
        let chunk = AgePayloadKey.chunkByteCount
        for size in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk] {
            let plaintext = Data(filePattern(size))
            for (recipients, identity) in [
                ([pq.recipient], pq), ([other.recipient, pq.recipient], pq), ([classical.recipient], classical),
            ] {
                let file = try AgeFile.encrypt(plaintext, to: recipients)
                #expect(AgeFile.isAgeFile(file))
                #expect(try AgeFile.decrypt(file, with: [identity]) == plaintext)
                #expect(try AgeVectorTests.decrypt(file, [identity], piece: 7_777) == plaintext)
                let expectedSize = size + 16 + max(1, (size + chunk - 1) / chunk) * 16
                #expect(file.count - (try AgeHeader.parse(file).length) == expectedSize)
            }
        }
        #expect(
            Self.code { _ = try AgeFile.encrypt(Data(), to: [pq.recipient, classical.recipient]) }
                == .invalidParameters
        )
        #expect(Self.code { _ = try AgeFile.encrypt(Data(), to: []) } == .invalidParameters)
    }

    @Test(
        "keys in text: recipient and identity round trip; a Strongroom X-Wing key is an age identity; bad text refused"
    )
    func keys() throws {
        let hybrid = HybridPrivateKey()
        let identity = AgeIdentity(hybrid)
        #expect(identity.recipient == .hybrid(hybrid.publicKey))
        let recipientText = identity.recipient.description
        #expect(recipientText.hasPrefix("age1pq1") && recipientText == recipientText.lowercased())
        #expect(try AgeRecipient(recipientText) == identity.recipient)
        #expect(identity.secretText.hasPrefix("AGE-SECRET-KEY-PQ-1"))
        #expect(try AgeIdentity(identity.secretText).recipient == identity.recipient)
        #expect(!identity.description.contains(identity.secretText.dropFirst(19).prefix(8)))
        let classical = AgeIdentity.generate(postQuantum: false)
        #expect(classical.recipient.description.hasPrefix("age1") && !classical.recipient.isPostQuantum)
        #expect(try AgeIdentity(classical.secretText).recipient == classical.recipient)
        // A flipped character (checksum), mixed case, the other kind's prefix, the all-zero X25519 key.
        var flipped = Array(recipientText)
        flipped[20] = flipped[20] == "q" ? "p" : "q"
        for text in [
            String(flipped), recipientText.prefix(10) + recipientText.dropFirst(10).uppercased(),
            identity.secretText.lowercased(), Bech32.encode(prefix: "age", Data(count: 32)), "",
            String(repeating: "q", count: 5_000),
        ] {
            #expect(Self.code { _ = try AgeRecipient(String(text)) } == .invalidKey)
        }
        #expect(Self.code { _ = try AgeIdentity(recipientText) } == .invalidKey)
    }

    @Test("hostile files: changed, cut, extended, re-headered or oversized ones are refused with typed errors")
    func hostile() throws {
        let identity = AgeIdentity.generate()
        let plaintext = Data(filePattern(2 * AgePayloadKey.chunkByteCount + 5))
        let file = try AgeFile.encrypt(plaintext, to: [identity.recipient])
        let headerLength = try AgeHeader.parse(file).length
        let decrypt = { (bytes: Data) in Self.code { _ = try AgeFile.decrypt(bytes, with: [identity]) } }
        var flipped = file
        flipped[flipped.count - 100] ^= 1
        #expect(decrypt(flipped) == .authenticationFailed)
        #expect(decrypt(file.prefix(file.count - 1)) == .authenticationFailed)
        #expect(decrypt(file.prefix(headerLength + 16 + AgePayloadKey.chunkByteCount + 16)) == .authenticationFailed)
        #expect(decrypt(file.prefix(headerLength + 10)) == .truncated)
        #expect(decrypt(file.prefix(headerLength - 5)) == .truncated)
        #expect(decrypt(file + Data([0])) == .authenticationFailed)
        // The MAC covers the header: a changed stanza argument that still parses.
        var greased = file
        greased.insert(contentsOf: Data("-> grease x\n\n".utf8), at: try #require(file.firstIndex(of: 0x0A)) + 1)
        #expect(decrypt(greased) == .authenticationFailed)
        #expect(decrypt(try AgeFile.encrypt(plaintext, to: [AgeIdentity.generate().recipient])) == .noMatchingIdentity)
        #expect(decrypt(Data("not age\n".utf8)) == .invalidFormat)
        // A header past its bound is refused without reading further.
        let huge = Data("age-encryption.org/v1\n-> x\n".utf8) + Data(repeating: 0x41, count: AgeHeader.maximumBytes)
        #expect(decrypt(huge) == .invalidFormat)
    }

    @Test("a header fed a byte at a time is parsed once complete; a 4 MiB header of short lines is refused, bounded")
    func headerInPieces() throws {
        let identity = AgeIdentity.generate()
        let file = try AgeFile.encrypt(Data("small".utf8), to: [identity.recipient, AgeIdentity.generate().recipient])
        #expect(try AgeVectorTests.decrypt(file, [identity], piece: 1) == Data("small".utf8))
        // Many stanzas of short lines, past the bound: refused as the bytes arrive, without a crash or a stall.
        var lines = Data("age-encryption.org/v1\n".utf8)
        let stanza = Data("-> x\n\n".utf8)
        while lines.count <= AgeHeader.maximumBytes { lines += stanza }
        #expect(Self.code { _ = try AgeVectorTests.decrypt(lines, [identity], piece: 64 << 10) } == .invalidFormat)
        #expect(Self.code { _ = try AgeHeader.parse(lines) } == .invalidFormat)
    }

    @Test("files: encrypted and decrypted streamed, 0600, nothing left at the destination when a file is refused")
    func files() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "age-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let identity = AgeIdentity.generate()
        let plaintext = Data(filePattern(3 * (1 << 20) + 17))
        let (plain, sealed, opened) = (
            folder.appending(path: "plain"), folder.appending(path: "sealed.age"), folder.appending(path: "opened")
        )
        try plaintext.write(to: plain)
        try await AgeFile.encrypt(contentsOf: plain, to: sealed, recipients: [identity.recipient])
        let permissions = try FileManager.default.attributesOfItem(atPath: sealed.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(try await AgeFile.decrypt(contentsOf: sealed, to: opened, identities: [identity]) == plaintext.count)
        #expect(try Data(contentsOf: opened) == plaintext)
        var damaged = try Data(contentsOf: sealed)
        damaged[damaged.count / 2] ^= 1
        try damaged.write(to: sealed)
        let refused = folder.appending(path: "refused")
        await #expect(throws: StrongroomCrypto.CryptoError.self) {
            try await AgeFile.decrypt(contentsOf: sealed, to: refused, identities: [identity])
        }
        #expect(!FileManager.default.fileExists(atPath: refused.path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "opened", "plain", "sealed.age",
            ]
        )
    }
}
