// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Access-key files: the key as unpadded base64url on one line, mode 0600.
enum KeyFile {
    static func write(_ key: AccessKey, to path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw CLIError(description: "error: \(path) already exists; not overwriting a key", exitCode: .init(6))
        }
        let created = FileManager.default.createFile(
            atPath: path,
            contents: Data((Base64URL.encode(key.rawRepresentation) + "\n").utf8),
            attributes: [.posixPermissions: 0o600]
        )
        guard created else { throw CLIError(description: "error: cannot write \(path)", exitCode: .init(6)) }
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
