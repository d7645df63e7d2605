// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
public import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Argon2id password hashing (libsodium `crypto_pwhash`, algorithm `ARGON2ID13`), for key-encryption keys.
public enum Argon2id {
    /// The salt length Strongroom uses (16 bytes, libsodium's `crypto_pwhash_SALTBYTES`).
    public static let saltByteCount = Int(crypto_pwhash_saltbytes())

    /// Cost parameters. Store them beside the salt, and validate them on read with ``validate()`` so that a
    /// tampered header cannot demand unbounded memory or time.
    public struct Parameters: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Passes over memory (libsodium `opslimit`).
        public var iterations: UInt64
        /// Memory in bytes (libsodium `memlimit`).
        public var memoryBytes: Int

        /// Creates parameters; call ``validate()`` before use on anything read from storage.
        public init(iterations: UInt64, memoryBytes: Int) {
            self.iterations = iterations
            self.memoryBytes = memoryBytes
        }

        /// libsodium INTERACTIVE: 2 passes, 64 MiB.
        public static let interactive = Parameters(
            iterations: UInt64(crypto_pwhash_opslimit_interactive()),
            memoryBytes: crypto_pwhash_memlimit_interactive()
        )
        /// libsodium MODERATE: 3 passes, 256 MiB. Strongroom's default for stored keys.
        public static let moderate = Parameters(
            iterations: UInt64(crypto_pwhash_opslimit_moderate()),
            memoryBytes: crypto_pwhash_memlimit_moderate()
        )
        /// libsodium SENSITIVE: 4 passes, 1 GiB.
        public static let sensitive = Parameters(
            iterations: UInt64(crypto_pwhash_opslimit_sensitive()),
            memoryBytes: crypto_pwhash_memlimit_sensitive()
        )
        /// The cheapest parameters accepted (OWASP's floor: 2 passes, 19 MiB).
        public static let minimum = Parameters(iterations: 2, memoryBytes: 19 << 20)
        /// The most expensive parameters accepted when reading (age-style work-factor cap: 10 passes, 1 GiB).
        public static let maximum = Parameters(iterations: 10, memoryBytes: 1 << 30)

        /// Checks the parameters lie between ``minimum`` and ``maximum``.
        ///
        /// - Throws: ``CryptoError/Code/invalidParameters`` otherwise.
        public func validate() throws(CryptoError) {
            guard (Self.minimum.iterations...Self.maximum.iterations).contains(iterations),
                (Self.minimum.memoryBytes...Self.maximum.memoryBytes).contains(memoryBytes)
            else {
                throw CryptoError(.invalidParameters, "Argon2id parameters are outside the accepted range")
            }
        }

        public var description: String { "Argon2id(t=\(iterations), m=\(memoryBytes >> 20) MiB, p=1)" }
    }

    /// Derives `byteCount` bytes from `password` and `salt`.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a salt that is not 16 bytes, parameters out of range or
    ///   an output length under 16 bytes; ``CryptoError/Code/io`` when the memory cannot be allocated.
    public static func deriveKey(
        from password: SecureBytes,
        salt: Data,
        parameters: Parameters,
        byteCount: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        try parameters.validate()
        guard salt.count == saltByteCount else { throw CryptoError(.invalidParameters, "an Argon2id salt is 16 bytes") }
        guard byteCount >= 16 else { throw CryptoError(.invalidParameters, "an Argon2id output is at least 16 bytes") }
        SodiumRuntime.ensureInitialized()
        var status: Int32 = 0
        let key = SecureBytes(count: byteCount) { output in
            status = password.withUnsafeBytes { passwordBytes in
                salt.withUnsafeBytes { saltBytes in
                    crypto_pwhash(
                        output.sodiumMutableBytes,
                        UInt64(byteCount),
                        UnsafeRawPointer(passwordBytes.sodiumBytes).assumingMemoryBound(to: CChar.self),
                        UInt64(passwordBytes.count),
                        saltBytes.sodiumBytes,
                        parameters.iterations,
                        parameters.memoryBytes,
                        crypto_pwhash_alg_argon2id13()
                    )
                }
            }
        }
        guard status == 0 else { throw CryptoError(.io, "Argon2id could not allocate its memory") }
        return key
    }

    /// Derives `byteCount` bytes from a text password (its UTF-8 bytes; the temporary copy is wiped).
    public static func deriveKey(
        fromPassword password: String,
        salt: Data,
        parameters: Parameters,
        byteCount: Int = 32
    ) throws(CryptoError) -> SecureBytes {
        var utf8 = Array(password.utf8)
        defer { Wipe.bytes(&utf8) }
        return try deriveKey(from: SecureBytes(copying: utf8), salt: salt, parameters: parameters, byteCount: byteCount)
    }
}
