// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
public import StrongroomCore

/// An HMAC-SHA-256 key (RFC 2104, libsodium's `crypto_auth_hmacsha256`) ready to authenticate many short messages:
/// the key's inner and outer hash states are computed once, so each code costs only the hashing of its message.
///
/// Made for a server's hot paths (its bearer tokens, signed blob URLs), where swift-crypto's generic `HMAC` spent
/// more time setting up than hashing. The precomputed states are derived from the key: they live in memory of
/// their own, wiped when the key is released, and each call works on a stack copy that it wipes before returning.
public final class HMACSHA256Key: @unchecked Sendable {
    // Sendable: the state is written only in `init` and then only read (copied) by each call.

    /// The size of an authentication code in bytes.
    public static let codeByteCount = Int(crypto_auth_hmacsha256_bytes())

    private let state: UnsafeMutablePointer<crypto_auth_hmacsha256_state>

    /// Prepares `key` (any length; RFC 2104 hashes a key longer than 64 bytes first).
    public init(_ key: SecureBytes) {
        SodiumRuntime.ensureInitialized()
        state = .allocate(capacity: 1)
        key.withUnsafeBytes { key in
            _ = crypto_auth_hmacsha256_init(state, key.sodiumBytes, key.count)
        }
    }

    deinit {
        sodium_memzero(state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        state.deallocate()
    }

    /// The authentication code of `message`.
    public func authenticationCode(for message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.codeByteCount) { code, count in
            authenticate(message, into: UnsafeMutableRawBufferPointer(code))
            count = Self.codeByteCount
        }
    }

    /// The authentication code of the UTF-8 bytes of `message`.
    public func authenticationCode(for message: String) -> [UInt8] {
        var message = message
        return message.withUTF8 { authenticationCode(for: UnsafeRawBufferPointer($0)) }
    }

    /// Whether `code` authenticates `message` under this key, compared in constant time (a code of the wrong
    /// length is simply not valid).
    public func isValidAuthenticationCode(
        _ code: UnsafeRawBufferPointer,
        authenticating message: UnsafeRawBufferPointer
    ) -> Bool {
        guard code.count == Self.codeByteCount else { return false }
        return withUnsafeTemporaryAllocation(byteCount: Self.codeByteCount, alignment: 1) { expected in
            defer { sodium_memzero(expected.baseAddress, expected.count) }
            authenticate(message, into: expected)
            return ConstantTime.equals(UnsafeRawBufferPointer(expected), code)
        }
    }

    /// Hashes `message` from a copy of the prepared state into `code` (exactly ``codeByteCount`` bytes).
    private func authenticate(_ message: UnsafeRawBufferPointer, into code: UnsafeMutableRawBufferPointer) {
        var working = state.pointee
        defer { withUnsafeMutableBytes(of: &working) { sodium_memzero($0.baseAddress, $0.count) } }
        _ = crypto_auth_hmacsha256_update(&working, message.sodiumBytes, UInt64(message.count))
        _ = crypto_auth_hmacsha256_final(&working, code.sodiumMutableBytes)
    }
}
