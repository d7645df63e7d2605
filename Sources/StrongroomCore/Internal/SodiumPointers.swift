// Strongroom — SPDX-License-Identifier: Apache-2.0

/// One byte that non-null pointers to empty buffers point at. Nothing ever writes to it: libsodium reads no
/// bytes when a length is zero, but its Debian headers declare the pointers `nonnull`.
nonisolated(unsafe) private let emptyByte: UnsafeMutablePointer<UInt8> = {
    let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    pointer.initialize(to: 0)
    return pointer
}()

extension UnsafeRawBufferPointer {
    /// A non-null `const unsigned char *` for libsodium, valid even when the buffer is empty.
    package var sodiumBytes: UnsafePointer<UInt8> {
        guard let base = baseAddress else { return UnsafePointer(emptyByte) }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

extension UnsafeMutableRawBufferPointer {
    /// A non-null `unsigned char *` for libsodium, valid even when the buffer is empty.
    package var sodiumMutableBytes: UnsafeMutablePointer<UInt8> {
        guard let base = baseAddress else { return emptyByte }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for closures with a typed error (the standard library's version only rethrows).
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }

    /// `withUnsafeMutableBytes` for closures with a typed error.
    package mutating func withMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = withUnsafeMutableBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }
}
