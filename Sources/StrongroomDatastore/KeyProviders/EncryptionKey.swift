// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// A datastore's 256-bit data key (CDTDatastore's `CDTEncryptionKey`). Its bytes are wiped when the last copy is
/// released, and it never prints them.
public struct EncryptionKey: Sendable, CustomStringConvertible {
    let bytes: SecureBytes

    /// Wraps exactly 32 key bytes.
    ///
    /// - Throws: ``DatastoreError/Code/invalidKey`` for any other length.
    public init(_ bytes: some Collection<UInt8>) throws(DatastoreError) {
        guard bytes.count == 32 else { throw DatastoreError(.invalidKey, "a datastore key is exactly 32 bytes") }
        self.bytes = SecureBytes(copying: Array(bytes))
    }

    /// Wraps 32 bytes already in a secure buffer.
    ///
    /// - Throws: ``DatastoreError/Code/invalidKey`` for any other length.
    public init(_ bytes: SecureBytes) throws(DatastoreError) {
        guard bytes.count == 32 else { throw DatastoreError(.invalidKey, "a datastore key is exactly 32 bytes") }
        self.bytes = bytes
    }

    /// A new random key.
    public static func random() -> EncryptionKey { EncryptionKey(unchecked: SecureRandom.bytes(count: 32)) }

    private init(unchecked bytes: SecureBytes) { self.bytes = bytes }

    /// Never the key: `EncryptionKey(256 bits)`.
    public var description: String { "EncryptionKey(256 bits)" }
}
