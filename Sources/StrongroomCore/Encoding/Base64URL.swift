// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Base64url as E3DB uses it: the `-`/`_` alphabet, **no padding** on output.
///
/// Encoding and decoding go through libsodium, whose codec runs in constant time, so keys can pass through it.
/// Decoding is strict by default (no `=`, canonical trailing bits), as Go and Swift peers require; pass
/// ``PaddingPolicy/allowed`` where a peer (the Python SDK) may send padding.
public enum Base64URL {
    /// Whether `=` padding is accepted when decoding.
    public enum PaddingPolicy: Sendable, Hashable {
        /// Padding is an error (the default; what everything in E3DB emits).
        case rejected
        /// Up to two trailing `=` are accepted and ignored.
        case allowed
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        SodiumRuntime.ensureInitialized()
        let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
        let length = sodium_base64_encoded_len(bytes.count, variant)
        return String(unsafeUninitializedCapacity: length) { out in
            out.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return }
                _ = sodium_bin2base64(
                    base,
                    length,
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    bytes.count,
                    variant
                )
            }
            return length - 1  // drop the terminating NUL
        }
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some DataProtocol) -> String {
        if let result = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Encodes a secret as unpadded base64url without copying it out of its secure buffer.
    public static func encode(_ secret: SecureBytes) -> String {
        secret.withUnsafeBytes { encode($0) }
    }

    /// Decodes base64url text into bytes.
    ///
    /// - Throws: ``CoreError/Code/invalidEncoding`` for characters outside the alphabet, padding where it is
    ///   rejected, or non-canonical trailing bits.
    public static func decode(
        _ text: some StringProtocol,
        padding: PaddingPolicy = .rejected
    ) throws(CoreError)
        -> Data
    {
        var utf8 = Array(text.utf8)
        let (count, ok) = decodeInPlace(&utf8, padding: padding)
        guard ok else { throw .invalidEncoding("not valid unpadded base64url") }
        return Data(utf8[0..<count])
    }

    /// Decodes base64url text straight into a secure buffer (for keys).
    ///
    /// - Throws: ``CoreError/Code/invalidEncoding`` as ``decode(_:padding:)``.
    public static func decodeSecret(
        _ text: some StringProtocol,
        padding: PaddingPolicy = .rejected
    )
        throws(CoreError) -> SecureBytes
    {
        var utf8 = Array(text.utf8)
        defer { Wipe.bytes(&utf8) }
        let (count, ok) = decodeInPlace(&utf8, padding: padding)
        guard ok else { throw .invalidEncoding("not valid unpadded base64url") }
        return utf8.withUnsafeBytes { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Decodes `utf8` into its own prefix (output is never longer than input). Returns the decoded length.
    private static func decodeInPlace(_ utf8: inout [UInt8], padding: PaddingPolicy) -> (Int, Bool) {
        SodiumRuntime.ensureInitialized()
        var length = utf8.count
        if padding == .allowed {
            var stripped = 0
            while length > 0, utf8[length - 1] == UInt8(ascii: "="), stripped < 2 {
                length -= 1
                stripped += 1
            }
            // Padding, when present, must complete a 4-character group.
            if stripped > 0, (length + stripped) % 4 != 0 { return (0, false) }
        }
        if length == 0 { return (0, true) }
        if length % 4 == 1 { return (0, false) }
        var source = Array(utf8[0..<length])
        defer { Wipe.bytes(&source) }
        var decodedLength = 0
        let status = source.withUnsafeBufferPointer { input in
            utf8.withUnsafeMutableBufferPointer { output in
                input.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = output.baseAddress else { return Int32(-1) }
                    return sodium_base642bin(
                        base,
                        output.count,
                        chars.baseAddress,
                        length,
                        nil,
                        &decodedLength,
                        nil,
                        Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
                    )
                }
            }
        }
        return (decodedLength, status == 0)
    }
}
