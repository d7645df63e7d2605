// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A copy of every byte of `array`'s storage, its spare capacity included, for tests that check what a buffer
/// emptied with `removeAll(keepingCapacity: true)` still holds. The spare bytes are copied as they are; `array` keeps
/// its count and its storage.
public func storedBytes(of array: inout [UInt8]) -> [UInt8] {
    let count = array.count
    // Marks the spare capacity initialized without writing it (bytes have no invalid values), copies it all, then
    // drops it again; asking for no more than the spare capacity never reallocates.
    array.append(addingCapacity: array.capacity - count) { span in
        span.withUnsafeMutableBufferPointer { free, initialized in initialized = free.count }
    }
    let copy = array.withUnsafeBufferPointer { [UInt8]($0) }
    array.removeSubrange(count...)
    return copy
}
