// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomClient
import StrongroomCore
import StrongroomShield

/// Files downloaded straight into the shield's encrypted-at-rest form.
extension Client {
    /// Downloads a file record into a new file at `destination` stored as `protection` says: `.protected(p)` keeps
    /// it encrypted at rest under the file protector's keychain key (Linux's answer to e3db-swift's
    /// `FileProtectionType.complete`), decrypting and re-encrypting in one pass so no plaintext reaches the disk;
    /// read it with `p.unprotect(contentsOf:to:)`. `.none` is `readFile(recordID:destination:progress:)`.
    ///
    /// - Throws: what `readFile(recordID:destination:progress:)` throws.
    @discardableResult
    public func readFile(
        recordID: UUID,
        destination: URL,
        protection: FileProtection,
        progress: (@Sendable (FileTransferProgress) -> Void)? = nil
    ) async throws(ClientError) -> FileInfo {
        guard case .protected(let protector) = protection else {
            return try await readFile(recordID: recordID, destination: destination, progress: progress)
        }
        return try await readFile(recordID: recordID, progress: progress) { encrypted, keys throws(ClientError) in
            do throws(ShieldError) {
                try await protector.protect(e3dbFile: encrypted, decryptingWithAnyOf: keys, to: destination) {
                    progress?(.decrypting($0))
                }
            } catch {
                throw Self.fileStepFailure(
                    "the file could not be protected: \(error.message)",
                    cancelled: error.code == .cancelled,
                    io: error.code == .io,
                    underlying: error
                )
            }
        }
    }
}
