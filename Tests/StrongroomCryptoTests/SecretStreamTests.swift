// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomCrypto
import Testing

/// The chunked secretstream: both open forms return what was sealed, and altered chunks, other associated data and
/// short buffers are typed errors.
@Suite struct SecretStreamTests {
    let key = SecureBytes(copying: [UInt8](repeating: 7, count: 32))
    let aad = Array("doc\u{0}name".utf8)

    @Test("sealed chunks open in order through the secure and the buffer forms")
    func roundTrip() throws {
        let sealer = try SecretStream.Sealer(key: key)
        let chunks: [[UInt8]] = [Array(0..<200), [], Array(repeating: 9, count: 65_536)]
        let sealed = chunks.enumerated().map { index, chunk in
            chunk.withUnsafeBytes { sealer.seal($0, associatedData: aad, isFinal: index == chunks.count - 1) }
        }
        let secure = try SecretStream.Opener(key: key, header: sealer.header)
        let buffered = try SecretStream.Opener(key: key, header: sealer.header)
        for (index, chunk) in sealed.enumerated() {
            let opened = try chunk.withUnsafeBytes { try secure.open($0, associatedData: aad) }
            #expect(opened.plaintext == SecureBytes(copying: chunks[index]))
            var output = [UInt8](repeating: 0, count: chunks[index].count)
            let result = try chunk.withUnsafeBytes { bytes in
                try output.withUnsafeMutableBytes { try buffered.open(bytes, associatedData: aad, into: $0) }
            }
            #expect(output == chunks[index] && result.count == chunks[index].count)
            #expect(result.isFinal == (index == sealed.count - 1) && opened.isFinal == result.isFinal)
        }
    }

    @Test("an altered chunk, other associated data or a short output buffer is refused")
    func refusals() throws {
        let sealer = try SecretStream.Sealer(key: key)
        var chunk = [UInt8](repeating: 1, count: 100).withUnsafeBytes {
            sealer.seal($0, associatedData: aad, isFinal: true)
        }
        let small = try SecretStream.Opener(key: key, header: sealer.header)
        var tiny = [UInt8](repeating: 0, count: 10)
        let tooSmall = #expect(throws: CryptoError.self) {
            try chunk.withUnsafeBytes { bytes in
                try tiny.withUnsafeMutableBytes { try small.open(bytes, associatedData: aad, into: $0) }
            }
        }
        #expect(tooSmall?.code == .invalidParameters)
        let other = try SecretStream.Opener(key: key, header: sealer.header)
        let wrongData = #expect(throws: CryptoError.self) {
            try chunk.withUnsafeBytes { try other.open($0, associatedData: Array("elsewhere".utf8)) }
        }
        #expect(wrongData?.code == .authenticationFailed)
        chunk[20] ^= 1
        let altered = try SecretStream.Opener(key: key, header: sealer.header)
        let flipped = #expect(throws: CryptoError.self) {
            try chunk.withUnsafeBytes { try altered.open($0, associatedData: aad) }
        }
        #expect(flipped?.code == .authenticationFailed)
        let short = #expect(throws: CryptoError.self) {
            try [UInt8](repeating: 0, count: 5).withUnsafeBytes { try altered.open($0, associatedData: aad) }
        }
        #expect(short?.code == .truncated)
    }
}
