// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import Synchronization

/// A secret held sealed in memory while it is kept a long time (a client certificate's private key, an unlocked
/// keychain's file key), opened only for the moment it is used.
///
/// The bytes are sealed with XChaCha20-Poly1305 under a per-process key that lives in memory from `sodium_malloc`
/// (locked with `mlock`, between guard pages, behind a canary) and is readable only while a seal or an open runs
/// (`sodium_mprotect_noaccess` otherwise). A memory dump, a swapped page or a stray read of the heap then finds
/// ciphertext; the plaintext exists only inside ``withUnsealed(_:)`` in a buffer wiped when it returns. This is
/// ConfidoIOS's design note for keys at rest in RAM; it does not stop code running in the process from opening the
/// secret the same way.
public struct SealedSecret: Sendable {
    /// nonce ‖ ciphertext ‖ tag: not secret.
    private let sealed: [UInt8]
    /// The plaintext's length.
    public let count: Int

    /// Seals a copy of `bytes` (the caller still wipes its own).
    public init(sealing bytes: UnsafeRawBufferPointer) {
        count = bytes.count
        sealed = ProcessSealingKey.shared.seal(bytes)
    }

    /// Seals a copy of `secret`.
    public init(_ secret: SecureBytes) {
        self = secret.withUnsafeBytes { SealedSecret(sealing: $0) }
    }

    /// Runs `body` with the plaintext in a buffer that is wiped when `body` returns (do not let the pointer
    /// escape).
    public func withUnsealed<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        defer {
            sodium_memzero(plaintext.baseAddress, plaintext.count)
            plaintext.deallocate()
        }
        ProcessSealingKey.shared.open(sealed, into: plaintext)
        return try body(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]))
    }

    /// The plaintext as ``SecureBytes`` (wiped when its last copy goes).
    public func unsealed() -> SecureBytes {
        withUnsealed { SecureBytes(copying: $0) }
    }
}

/// The per-process sealing key, in guarded, locked memory that is inaccessible between uses.
///
/// `@unchecked Sendable`: the pointer never changes, and the memory behind it is touched only under `lock`, which
/// also serialises the protection changes (one thread must not make it inaccessible while another reads it).
private final class ProcessSealingKey: @unchecked Sendable {
    static let shared = ProcessSealingKey()

    private static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    private static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
    private static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_abytes())

    /// From `sodium_malloc`, never freed: it lives as long as the process.
    private let key: UnsafeMutableRawPointer
    private let lock = Mutex(())

    private init() {
        SodiumRuntime.ensureInitialized()
        guard let pointer = sodium_malloc(Self.keyBytes) else {
            preconditionFailure("sodium_malloc could not allocate the in-memory sealing key")
        }
        crypto_aead_xchacha20poly1305_ietf_keygen(pointer.assumingMemoryBound(to: UInt8.self))
        sodium_mprotect_noaccess(pointer)
        key = pointer
    }

    /// Runs `body` with the key readable.
    private func withKey<R>(_ body: (UnsafePointer<UInt8>) -> R) -> R {
        lock.withLock { _ in
            sodium_mprotect_readonly(key)
            defer { sodium_mprotect_noaccess(key) }
            return body(UnsafePointer(key.assumingMemoryBound(to: UInt8.self)))
        }
    }

    func seal(_ plaintext: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Self.nonceBytes + plaintext.count + Self.tagBytes)
        output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { preconditionFailure("a sealed secret has a nonce and a tag") }
            randombytes_buf(base, Self.nonceBytes)
            withKey { key in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    base + Self.nonceBytes,
                    nil,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    UInt64(plaintext.count),
                    nil,
                    0,
                    nil,
                    base,
                    key
                )
            }
        }
        return output
    }

    func open(_ sealed: [UInt8], into plaintext: UnsafeMutableRawBufferPointer) {
        let result = sealed.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress, let output = plaintext.baseAddress else { return -1 }
            return withKey { key in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.assumingMemoryBound(to: UInt8.self),
                    nil,
                    nil,
                    base + Self.nonceBytes,
                    UInt64(sealed.count - Self.nonceBytes),
                    nil,
                    0,
                    base,
                    key
                )
            }
        }
        // Only this process's key sealed it and nothing can change the sealed bytes (immutable): a failure is
        // memory corruption, not input.
        precondition(result == 0, "a sealed in-memory secret failed to open: memory was corrupted")
    }
}
