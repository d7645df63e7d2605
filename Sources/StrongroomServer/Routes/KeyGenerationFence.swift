// Strongroom — SPDX-License-Identifier: Apache-2.0
import HTTPTypes
import Hummingbird
import StrongroomWire

/// The fence on writes sealed under an old access-key generation (docs/design/Revocation.md, "The fence"): a
/// Strongroom client names the generation its data keys are under (`X-Strongroom-Key-Generation`) on a record write
/// or update, and the server refuses it (409, `stale_key_generation`, the current generation in the same header)
/// once the type has rotated past it. A request without the header — every official SDK's — is served as before.
struct KeyGenerationFence {
    let store: any SharingStore

    /// The header's name (a valid field name: `HTTPField.Name` refuses none of its characters).
    static let field = HTTPField.Name(StrongroomHeader.keyGeneration)

    /// The generation `request` names; nil without the header; 400 when it is not a generation.
    static func sent(in request: Request) throws -> Int? {
        guard let field, let text = request.headers[field] else { return nil }
        guard let generation = KeyGeneration.parse(text) else {
            throw ServerError.badRequest(
                "\(StrongroomHeader.keyGeneration) is not a key generation (an integer from 1 to 2147483647)"
            )
        }
        return generation
    }

    /// Refuses a write sealed under `sent` unless it is `scope`'s current generation (nothing to check without it).
    func require(_ sent: Int?, of scope: AccessKeyScope) async throws {
        guard let sent else { return }
        let current = try await store.currentKeyGeneration(of: scope)
        guard current == sent else { throw ServerError.staleKeyGeneration(sent: sent, current: current) }
    }

    /// After a new record sealed under `sent` was stored: if a rotation committed between the check before the
    /// insert and now, the rotation's re-wrap may already have passed the place the record took, so it is taken
    /// back and refused (unless the re-wrap reached it first, which changed its version: then it is under the new
    /// key and stays). A rotation committed after this read re-wraps it, since it was stored before.
    func settle(
        _ sent: Int?,
        of scope: AccessKeyScope,
        stored record: StoredRecord,
        in records: any RecordStore
    )
        async throws
    {
        guard let sent else { return }
        let current = try await store.currentKeyGeneration(of: scope)
        guard current != sent, let id = RecordID(record.recordID) else { return }
        if case .done = try await records.deleteRecord(id: id, expectedVersion: record.version) {
            throw ServerError.staleKeyGeneration(sent: sent, current: current)
        }
    }

    /// The header naming `scope`'s current generation, for an EAK's answer.
    func header(for scope: AccessKeyScope) async throws -> HTTPFields {
        guard let field = Self.field else { return [:] }
        return [field: String(try await store.currentKeyGeneration(of: scope))]
    }
}
