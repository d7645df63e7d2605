// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import Synchronization

/// Key log entries already decoded, by their bytes. Decoding an entry that carries keys checks both points (an X25519
/// multiplication and an Ed25519 subgroup check, about 130 µs here), a pure function of the bytes; a client looks the
/// same few clients up again and again, so each entry's check runs once per process.
///
/// Only entries that decoded are kept (an invalid one is checked, and refused, every time); at most `capacity`
/// (4,096 for the process's cache), then the cache starts again empty.
final class KeyLogEntryCache: Sendable {
    /// The process's cache.
    static let shared = KeyLogEntryCache()

    /// Entries kept at most.
    let capacity: Int
    private let entries = Mutex<[Data: KeyLogEntry]>([:])

    init(capacity: Int = 4_096) { self.capacity = max(1, capacity) }

    /// The entry `bytes` encode, checked as `KeyLogEntry(decoding:)` checks it.
    func entry(decoding bytes: Data) throws(CryptoError) -> KeyLogEntry {
        if let known = entries.withLock({ $0[bytes] }) { return known }
        let entry = try KeyLogEntry(decoding: bytes)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[bytes] = entry
        }
        return entry
    }
}
