// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import Testing

/// Secrets sealed in memory under the per-process key: they open to what was sealed, from any thread at once, and
/// the value kept holds no plaintext.
@Suite struct SealedSecretTests {
    private static let secret = (0..<48).map { UInt8(($0 * 7 + 3) & 0xFF) }

    @Test("a sealed secret opens to exactly what was sealed, as often as asked; empty secrets too")
    func roundTrip() {
        let sealed = Self.secret.withUnsafeBytes { SealedSecret(sealing: $0) }
        #expect(sealed.count == 48)
        for _ in 0..<3 { #expect(sealed.withUnsealed { Array($0) } == Self.secret) }
        #expect(sealed.unsealed() == SecureBytes(copying: Self.secret))
        let empty = SealedSecret(SecureBytes(copying: []))
        #expect(empty.withUnsealed { $0.count } == 0)
    }

    @Test("the value held is ciphertext: its bytes do not contain the secret, and two seals of one secret differ")
    func heldSealed() {
        let first = SealedSecret(SecureBytes(copying: Self.secret))
        let second = SealedSecret(SecureBytes(copying: Self.secret))
        func held(_ value: SealedSecret) -> [UInt8] {
            Mirror(reflecting: value).children.compactMap { $0.value as? [UInt8] }.first ?? []
        }
        let bytes = held(first)
        #expect(bytes.count == 24 + 48 + 16)
        #expect(!bytes.windows(of: 8).contains(Array(Self.secret[0..<8])))
        #expect(bytes != held(second))
    }

    @Test("many tasks open sealed secrets at once: each gets its own plaintext (the key's protection is serialised)")
    func concurrent() async {
        let sealed = (0..<16).map { index in
            SealedSecret(SecureBytes(copying: Self.secret.map { $0 ^ UInt8(index) }))
        }
        await withTaskGroup(of: Bool.self) { group in
            for round in 0..<256 {
                let index = round % 16
                group.addTask { sealed[index].withUnsealed { Array($0) } == Self.secret.map { $0 ^ UInt8(index) } }
            }
            for await correct in group { #expect(correct) }
        }
    }
}

extension Array where Element == UInt8 {
    /// Every run of `count` consecutive bytes.
    fileprivate func windows(of count: Int) -> [[UInt8]] {
        guard self.count >= count else { return [] }
        return (0...(self.count - count)).map { Array(self[$0..<($0 + count)]) }
    }
}
