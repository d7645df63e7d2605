// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCrypto

/// Opened access keys by `(writer, user, type)`, so that each is fetched and opened once per client.
///
/// Reads are still authorised by the server every time: a revoked reader keeps a cached key but no longer gets
/// ciphertext to use it on.
actor AccessKeyCache {
    private struct Slot: Hashable {
        var writerID: String
        var userID: String
        var type: String
    }

    private struct Entry {
        var key: AccessKey
        var generation: Int?
    }

    private var keys: [Slot: Entry] = [:]

    func key(writerID: String, userID: String, type: String) -> AccessKey? {
        keys[Slot(writerID: writerID, userID: userID, type: type)]?.key
    }

    /// The key with the generation the server named when it answered it (nil: not named, as by servers that
    /// do not rotate).
    func entry(writerID: String, userID: String, type: String) -> (key: AccessKey, generation: Int?)? {
        keys[Slot(writerID: writerID, userID: userID, type: type)].map { ($0.key, $0.generation) }
    }

    func store(_ key: AccessKey, generation: Int? = nil, writerID: String, userID: String, type: String) {
        keys[Slot(writerID: writerID, userID: userID, type: type)] = Entry(key: key, generation: generation)
    }

    func remove(writerID: String, userID: String, type: String) {
        keys[Slot(writerID: writerID, userID: userID, type: type)] = nil
    }
}
