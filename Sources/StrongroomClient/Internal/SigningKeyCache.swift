// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto

/// Writers' signing keys by client ID, for `rec_sig` checks.
actor SigningKeyCache {
    private var keys: [UUID: SigningPublicKey] = [:]

    func key(for writerID: UUID) -> SigningPublicKey? { keys[writerID] }

    func store(_ key: SigningPublicKey, for writerID: UUID) { keys[writerID] = key }
}
