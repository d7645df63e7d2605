// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import StrongroomCore

/// The bearer-token HMAC key: `STRONGROOM_TOKEN_KEY` (unpadded base64url of 32 bytes) when set, so that instances on
/// several machines agree; otherwise `token.key` in the data directory, created on first use (mode 0600).
public func loadTokenKey(dataDirectory: String) throws -> SecureBytes {
    if let configured = ProcessInfo.processInfo.environment["STRONGROOM_TOKEN_KEY"], !configured.isEmpty {
        let key = try Base64URL.decodeSecret(configured)
        guard key.count == 32 else { throw ServerError(.configuration, "STRONGROOM_TOKEN_KEY must hold 32 bytes") }
        return key
    }
    try DataDirectory.prepare(dataDirectory)
    return SecureBytes(copying: try DataDirectory.tokenKey(in: dataDirectory))
}
