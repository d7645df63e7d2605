// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import StrongroomCore

/// The bearer-token HMAC key: `STRONGROOM_TOKEN_KEY` (unpadded base64url of 32 bytes) when set, so that instances on
/// several machines agree; otherwise `token.key` in the data directory, created on first use (mode 0600).
public func loadTokenKey(dataDirectory: String) throws -> SecureBytes {
    try resolveTokenKey(configured: nil, dataDirectory: dataDirectory).key
}

/// The token key from configuration (`configured`, then `STRONGROOM_TOKEN_KEY`), or from the data directory; `shared`
/// says whether it came from configuration, so that other instances can hold the same one.
func resolveTokenKey(configured: SecureBytes?, dataDirectory: String) throws -> (key: SecureBytes, shared: Bool) {
    if let configured {
        guard configured.count == 32 else { throw ServerError(.configuration, "the token key must hold 32 bytes") }
        return (configured, true)
    }
    if let text = ProcessInfo.processInfo.environment["STRONGROOM_TOKEN_KEY"], !text.isEmpty {
        return (try parseTokenKey(text, source: "STRONGROOM_TOKEN_KEY"), true)
    }
    try DataDirectory.prepare(dataDirectory)
    return (SecureBytes(copying: try DataDirectory.tokenKey(in: dataDirectory)), false)
}

/// Parses a token key written as unpadded base64url of 32 bytes (`STRONGROOM_TOKEN_KEY`, `--token-key-file`).
///
/// - Parameters:
///   - text: the encoded key; surrounding whitespace is ignored.
///   - source: where it came from, for the error message.
public func parseTokenKey(_ text: String, source: String) throws -> SecureBytes {
    let key: SecureBytes
    do {
        key = try Base64URL.decodeSecret(text.trimmingCharacters(in: .whitespacesAndNewlines))
    } catch {
        throw ServerError(.configuration, "\(source) is not base64url")
    }
    guard key.count == 32 else { throw ServerError(.configuration, "\(source) must hold 32 bytes") }
    return key
}
