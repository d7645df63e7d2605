// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import Testing

@testable import StrongroomCrypto

/// The X-Wing key (swift-crypto's) against the X-Wing draft's vectors, and the ML-KEM-768 modulus check of
/// ``HybridPublicKey`` against C2SP's CCTV modulus vectors (C2SP/CCTV at `1e3d2860d46e94e777e1b17c7a6f2436387e3ecc`,
/// CC0). CCTV's intermediate and "unlucky" ML-KEM files at that commit are FIPS 203 draft-era (no `k` appended to `d`
/// before G), so a final FIPS 203 implementation does not match them; the vectors that need a derandomised
/// encapsulation (the draft's `eseed`, CCTV's accumulated runs) or an expanded decapsulation key (CCTV's `strcmp`)
/// are out of reach of swift-crypto's public API.
@Suite struct MLKEMVectorTests {
    struct XWingVector: Decodable { let seed, pk, ct, ss: String }

    @Test("the X-Wing draft's vectors: the key a seed expands to, and the shared secret its decapsulation gives")
    func xwingDraft() throws {
        let vectors = try Vectors.load([XWingVector].self, "xwing/test-vectors.json")
        #expect(vectors.count == 3)
        for vector in vectors {
            let seed = Data(try #require(hexBytes(vector.seed)))
            let key = try HybridPrivateKey(seed: SecureBytes(copying: seed))
            #expect(key.publicKey.rawRepresentation == Data(try #require(hexBytes(vector.pk))))
            let secret = try key.key.decapsulate(Data(try #require(hexBytes(vector.ct))))
            #expect(secret.withUnsafeBytes { Data($0) } == Data(try #require(hexBytes(vector.ss))))
        }
    }

    @Test("every encapsulation key of CCTV's modulus vectors (a coefficient of q or more) is refused")
    func modulus() throws {
        let text = String(decoding: try Vectors.bytes("cctv-mlkem/modulus-ML-KEM-768-short.txt"), as: UTF8.self)
        let keys = try text.split(separator: "\n").map { Data(try #require(hexBytes($0))) }
        #expect(keys.count == 12 && keys.allSatisfy { $0.count == 1_184 })
        for ek in keys {
            #expect(throws: StrongroomCrypto.CryptoError.self) {
                _ = try HybridPublicKey(rawRepresentation: ek + Data(repeating: 9, count: 32))
            }
        }
    }
}
