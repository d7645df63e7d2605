// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCrypto
package import StrongroomWire

/// A file record's key re-wrapped after a rotation (docs/design/Revocation.md, "Files"): the server keeps the file's
/// stored body and serves it with the new prologue, so the official SDKs, as remaining readers, open it with the
/// newest key alone.
extension Client {
    /// The file `recordID`'s prologue as the server serves it now, and the record's version (its writer only).
    package func fileKey(recordID: String) async throws(ClientError) -> FileKeyResponse {
        try await authenticated(.GET, E3DBPath.fileKey.render(recordID), success: [200], as: FileKeyResponse.self)
    }

    /// What re-wrapping one file came to.
    enum FileRewrapOutcome { case rewrapped, current, left, superseded }

    /// Reads the file `recordID`'s prologue, seals its stream key under `newKey` (opened under the first of `oldKeys` that
    /// opens it) and stores it at the version it was read at, fenced by `generation`; a file that changed
    /// meanwhile is read again once. Left: a key under none of the keys, a prologue not of E3DB's 100-byte shape,
    /// or a file gone meanwhile. Superseded: the type rotated past `generation` (the newer rotation takes it).
    func rewrapFile(
        _ recordID: String,
        from oldKeys: [AccessKey],
        to newKey: AccessKey,
        generation: Int
    ) async throws(ClientError)
        -> FileRewrapOutcome
    {
        let path = E3DBPath.fileKey.render(recordID)
        for _ in 1...2 {
            let current: FileKeyResponse
            do {
                current = try await fileKey(recordID: recordID)
            } catch  where error.code == .notFound || error.code == .badRequest {
                return .left
            }
            let prologue: String
            do {
                switch try FileCipher.rewrapPrologue(current.prologue, from: oldKeys, to: newKey) {
                case .current: return .current
                case .rewrapped(let rewrapped): prologue = rewrapped
                }
            } catch {
                return .left
            }
            do {
                _ = try await authenticated(
                    .PUT,
                    path,
                    body: FileKeyRewrapRequest(generation: generation, version: current.version, prologue: prologue),
                    success: [200],
                    as: FileKeyRewrapResponse.self
                )
                return .rewrapped
            } catch  where error.isStaleKeyGeneration {
                return .superseded
            } catch  where error.code == .conflict {
                continue  // changed meanwhile: read its key again
            } catch  where error.code == .notFound {
                return .left
            }
        }
        return .left
    }
}
