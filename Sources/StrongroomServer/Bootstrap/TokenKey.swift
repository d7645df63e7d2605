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
    let environment = ProcessInfo.processInfo.environment
    if let text = environment["STRONGROOM_TOKEN_KEY"], !text.isEmpty {
        try requirePrivateTokenKeySource()
        return (try parseTokenKey(text, source: "STRONGROOM_TOKEN_KEY"), true)
    }
    try DataDirectory.prepare(dataDirectory)
    return (SecureBytes(copying: try DataDirectory.tokenKey(in: dataDirectory)), false)
}

/// The variable that names the file the environment was read from (the packaged unit sets it beside
/// `EnvironmentFile=`), so that a token key given there is refused when every user of the machine can read it.
let environmentFileVariable = "STRONGROOM_ENVIRONMENT_FILE"

/// When `STRONGROOM_TOKEN_KEY` is set and `STRONGROOM_ENVIRONMENT_FILE` names the file it came from, refuses that
/// file when it is open to others (its group may read it: the packaged file is 0640 root:strongroom): the token key
/// mints any client's bearer token and derives the key log's signing key. `serve` checks before creating anything.
package func requirePrivateTokenKeySource() throws {
    let environment = ProcessInfo.processInfo.environment
    guard let key = environment["STRONGROOM_TOKEN_KEY"], !key.isEmpty,
        let path = environment[environmentFileVariable], !path.isEmpty
    else { return }
    guard let permissions = AtomicFile.permissions(of: path) else { return }  // gone since systemd read it
    guard permissions & 0o007 == 0 else {
        throw ServerError(
            .configuration,
            "STRONGROOM_TOKEN_KEY is set in \(path), which every user of this machine can read: it may have leaked. "
                + "Make it private (chmod 640 and chgrp strongroom, or chmod 600) and replace the key"
        )
    }
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
