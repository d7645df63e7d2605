// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Access-key files: the key as unpadded base64url on one line, mode 0600.
enum KeyFile {
    /// Writes a new key file (never over an existing one), atomically and durably, mode 0600.
    static func write(_ key: AccessKey, to path: String) throws {
        do {
            try AtomicFile.write(
                Data((Base64URL.encode(key.rawRepresentation) + "\n").utf8),
                to: path,
                mode: .createNew
            )
        } catch {
            throw CLIError(
                description: "error: \(path): \(error.message); not overwriting a key",
                exitCode: .init(error.exists ? 9 : 6)
            )
        }
    }

    static func read(_ path: String) throws -> AccessKey {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError(description: "error: cannot read the key file \(path)", exitCode: .init(6))
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return try AccessKey(rawRepresentation: Base64URL.decodeSecret(trimmed))
    }
}
