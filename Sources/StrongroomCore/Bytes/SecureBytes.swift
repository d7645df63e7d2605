// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

/// An immutable buffer of secret bytes that is wiped (`sodium_memzero`) when its last copy goes away.
///
/// Copies share one storage, so copying a `SecureBytes` never duplicates the secret in memory. The buffer is
/// written once, when it is created, and never changes afterwards; that is why no copy-on-write is needed.
///
/// `==` compares in constant time. The type is deliberately not `Hashable`, and its `description` never shows the
/// bytes.
public struct SecureBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    // The storage is immutable after `init`, so sharing it between threads is safe.
    private final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer

        init(count: Int) {
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            self.count = count
        }

        let count: Int

        deinit {
            sodium_memzero(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
    }

    private let storage: Storage

    /// Creates a buffer of `count` bytes and lets `body` fill it. If `body` throws, the buffer is wiped and freed.
    public init<E: Error>(
        count: Int,
        initializingWith body: (UnsafeMutableRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        precondition(count >= 0, "SecureBytes count must not be negative")
        let storage = Storage(count: count)
        try body(UnsafeMutableRawBufferPointer(rebasing: storage.buffer[0..<count]))
        self.storage = storage
    }

    /// Copies `bytes` into a new secure buffer. The caller remains responsible for wiping its own copy.
    public init(copying bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self.init(count: array.count) { buffer in
            buffer.copyBytes(from: array)
        }
    }

    /// Copies raw memory into a new secure buffer.
    public init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count) { buffer in
            buffer.copyMemory(from: bytes)
        }
    }

    /// The number of bytes held.
    public var count: Int { storage.count }

    /// Whether the buffer holds no bytes.
    public var isEmpty: Bool { storage.count == 0 }

    /// Calls `body` with read access to the bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage.buffer[0..<storage.count]))
    }

    /// A new buffer holding the bytes in `range`.
    public func slice(_ range: Range<Int>) -> SecureBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SecureBytes slice out of bounds")
        return withUnsafeBytes { bytes in SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[range])) }
    }

    /// Constant-time comparison (length is not secret and is compared first).
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in ConstantTime.equals(left, right) } }
    }

    public var description: String { "SecureBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
}
