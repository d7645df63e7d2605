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

    private var keys: [Slot: AccessKey] = [:]

    func key(writerID: String, userID: String, type: String) -> AccessKey? {
        keys[Slot(writerID: writerID, userID: userID, type: type)]
    }

    func store(_ key: AccessKey, writerID: String, userID: String, type: String) {
        keys[Slot(writerID: writerID, userID: userID, type: type)] = key
    }

    func remove(writerID: String, userID: String, type: String) {
        keys[Slot(writerID: writerID, userID: userID, type: type)] = nil
    }
}
