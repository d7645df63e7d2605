// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomBackend
import Testing

/// The in-memory nonce store (issue 72, item 13): one signer cannot fill it for everyone, and a nonce stamped in the
/// future holds back the forgetting of nothing but itself.
@Suite struct MemoryNonceStoreTests {
    @Test("one signer's nonces fill only its share; another signer's requests are still taken")
    func perSignerShare() async throws {
        let store = MemoryNonceStore(capacity: 100, perSignerCapacity: 10)
        for number in 0..<10 {
            #expect(
                try await store.remember(
                    publicKey: "mallory",
                    nonce: "n\(number)",
                    timestamp: 1_000,
                    forgettingBefore: 0
                )
            )
        }
        await #expect(throws: MemoryNonceStore.NonceStoreFull.self) {
            try await store.remember(publicKey: "mallory", nonce: "more", timestamp: 1_000, forgettingBefore: 0)
        }
        #expect(try await store.remember(publicKey: "alice", nonce: "n0", timestamp: 1_000, forgettingBefore: 0))
        #expect(
            try await store.remember(publicKey: "alice", nonce: "n0", timestamp: 1_000, forgettingBefore: 0) == false
        )
        // Once mallory's nonces age out, its share is free again.
        #expect(
            try await store.remember(publicKey: "mallory", nonce: "later", timestamp: 2_000, forgettingBefore: 1_500)
        )
    }

    @Test("a nonce stamped in the future does not keep older ones from being forgotten")
    func futureNonce() async throws {
        let store = MemoryNonceStore(capacity: 10, perSignerCapacity: 10)
        #expect(try await store.remember(publicKey: "k", nonce: "future", timestamp: 1_300, forgettingBefore: 0))
        for number in 0..<9 {
            #expect(
                try await store.remember(publicKey: "k", nonce: "old\(number)", timestamp: 1_000, forgettingBefore: 0)
            )
        }
        // Full; then the window moves past the old ones (not the future one): room for nine again.
        await #expect(throws: MemoryNonceStore.NonceStoreFull.self) {
            try await store.remember(publicKey: "k", nonce: "x", timestamp: 1_000, forgettingBefore: 0)
        }
        for number in 0..<9 {
            #expect(
                try await store.remember(
                    publicKey: "k",
                    nonce: "new\(number)",
                    timestamp: 1_200,
                    forgettingBefore: 1_100
                )
            )
        }
        #expect(
            try await store.remember(publicKey: "k", nonce: "future", timestamp: 1_300, forgettingBefore: 1_100)
                == false
        )
    }
}
