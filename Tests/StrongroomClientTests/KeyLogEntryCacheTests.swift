// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import Testing

@testable import StrongroomClient

/// The decoded-entry cache a lookup's proof goes through: it answers what `KeyLogEntry(decoding:)` answers, keeps no
/// refusal, and stays within its bound.
@Suite struct KeyLogEntryCacheTests {
    static func entry(_ keys: ClientKeys) throws -> Data {
        let logged = try KeyLogEntry(
            keysOf: UUID(),
            .init(encryption: keys.encryptionKey.publicKey, signing: keys.signingKey.publicKey, previous: nil),
            registration: true,
            time: 1
        )
        return Data(logged.encoded)
    }

    @Test("the same entry twice, equal to a fresh decode; a small-order key refused every time; bounded")
    func cachedDecoding() throws {
        let cache = KeyLogEntryCache(capacity: 8)
        let bytes = try Self.entry(ClientKeys.generate())
        let first = try cache.entry(decoding: bytes)
        #expect(try cache.entry(decoding: bytes) == first)
        #expect(try KeyLogEntry(decoding: bytes) == first)
        // The X25519 key replaced by the all-zero point (small order): refused, and again (never kept).
        var bad = [UInt8](bytes)
        for index in 26..<58 { bad[index] = 0 }
        for _ in 0..<2 {
            #expect(throws: CryptoError.self) { try cache.entry(decoding: Data(bad)) }
        }
        for _ in 0...cache.capacity { _ = try cache.entry(decoding: Self.entry(ClientKeys.generate())) }
        #expect(try cache.entry(decoding: bytes) == first)
    }
}
