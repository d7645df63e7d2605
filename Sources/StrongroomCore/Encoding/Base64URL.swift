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

    /// Encodes public bytes (ciphertext, nonces, signatures, public keys) as unpadded base64url.
    ///
    /// This is the fast, table-driven codec. For secrets use ``encode(_:)-(SecureBytes)``, which runs in constant
    /// time.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let length = PublicBase64URL.encodedLength(bytes.count)
        return String(unsafeUninitializedCapacity: length) { PublicBase64URL.encode(bytes, into: $0) }
    }

    /// Writes the unpadded base64url encoding of public `bytes` into `output` and returns the count written.
    /// `output` must hold ``encodedLength(of:)`` bytes.
    package static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        PublicBase64URL.encode(bytes, into: output)
    }

    /// The length of the unpadded encoding of `count` bytes.
    public static func encodedLength(of count: Int) -> Int { PublicBase64URL.encodedLength(count) }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some DataProtocol) -> String {
        if let result = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return Array(bytes).withUnsafeBytes { encode($0) }
    }

    /// Encodes a secret as unpadded base64url in constant time (libsodium), without copying it out of its
    /// secure buffer.
    public static func encode(_ secret: SecureBytes) -> String {
        SodiumRuntime.ensureInitialized()
        let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
        let length = sodium_base64_encoded_len(secret.count, variant)
        return secret.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: length) { out in
                out.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else { return }
                    _ = sodium_bin2base64(base, length, bytes.sodiumBytes, bytes.count, variant)
                }
                return length - 1  // drop the terminating NUL
            }
        }
    }

    /// Decodes base64url text holding public bytes.
    ///
    /// - Throws: ``CoreError/Code/invalidEncoding`` for characters outside the alphabet, padding where it is
    ///   rejected, or non-canonical trailing bits.
    public static func decode(
        _ text: some StringProtocol,
        padding: PaddingPolicy = .rejected
    ) throws(CoreError)
        -> Data
    {
        var text = String(text)
        let result: Result<Data, CoreError> = text.withUTF8 { utf8 in
            Result { () throws(CoreError) -> Data in try decode(UnsafeRawBufferPointer(utf8), padding: padding) }
        }
        return try result.get()
    }

    /// Decodes base64url text, given as its UTF-8 bytes, holding public bytes.
    ///
    /// - Throws: ``CoreError/Code/invalidEncoding`` as ``decode(_:padding:)-(StringProtocol,_)``.
    public static func decode(
        _ utf8: UnsafeRawBufferPointer,
        padding: PaddingPolicy = .rejected
    ) throws(CoreError)
        -> Data
    {
        var length = utf8.count
        if padding == .allowed { length = try unpaddedLength(utf8) }
        guard let decodedLength = PublicBase64URL.decodedLength(length) else {
            throw .invalidEncoding("not valid unpadded base64url")
        }
        var data = Data(count: decodedLength)
        let ok = data.withUnsafeMutableBytes { output in
            PublicBase64URL.decode(UnsafeRawBufferPointer(rebasing: utf8[0..<length]), into: output)
        }
        guard ok else { throw .invalidEncoding("not valid unpadded base64url") }
        return data
    }

    /// The length without up to two trailing `=` that complete a group of four.
    private static func unpaddedLength(_ utf8: UnsafeRawBufferPointer) throws(CoreError) -> Int {
        var length = utf8.count
        var stripped = 0
        while length > 0, utf8[length - 1] == UInt8(ascii: "="), stripped < 2 {
            length -= 1
            stripped += 1
        }
        if stripped > 0, (length + stripped) % 4 != 0 { throw .invalidEncoding("padding does not complete a group") }
        return length
    }

    /// Decodes base64url text straight into a secure buffer (for keys).
    ///
    /// - Throws: ``CoreError/Code/invalidEncoding`` as the `decode(_:padding:)` overloads do.
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
