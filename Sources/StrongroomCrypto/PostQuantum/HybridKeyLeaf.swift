// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A client's post-quantum key as the key log records it (docs/design/PostQuantum.md): a
/// ``KeyLogEntry/Kind/hybridKeyPublished`` leaf naming the client, committing to SHA-256 of its ``HybridPublicKey``
/// (so leaves keep their fixed size; the key is served beside the proof), with the client's Ed25519 signature kept
/// beside the leaf over `"strongroom/hybrid-key/v1"`, the client's ID and that digest (72 bytes).
public enum HybridKeyLeaf {
    /// The domain the signed bytes start with.
    static let context = Array("strongroom/hybrid-key/v1".utf8)

    /// The bytes the client signs to publish `key`.
    public static func signedBytes(clientID: UUID, key: HybridPublicKey) -> Data {
        var bytes = Data(context)
        withUnsafeBytes(of: clientID.uuid) { bytes.append(contentsOf: $0) }
        bytes.append(key.digest)
        return bytes
    }

    /// The leaf that logs `clientID` publishing `key` at `time` (microseconds since the Unix epoch).
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a time past 2⁶³ − 1.
    public static func entry(clientID: UUID, key: HybridPublicKey, time: UInt64) throws(CryptoError) -> KeyLogEntry {
        try KeyLogEntry(
            .hybridKeyPublished,
            by: clientID,
            commitment: KeyLogCommitment(exactly: key.digest),
            time: time
        )
    }

    /// Whether `entry` logs `clientID` publishing `key`.
    public static func binds(_ entry: KeyLogEntry, clientID: UUID, key: HybridPublicKey) -> Bool {
        entry.kind == .hybridKeyPublished && entry.clientID == clientID
            && entry.commitment.map { ConstantTime.equals($0.bytes, key.digest) } ?? false
    }
}
