// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Notes (`/v2/storage/notes`): one-off encrypted messages addressed to a signing key, written and read with
/// TSV1. The server stores the note's JSON as sent (ciphertext, public keys, options) and adds its own fields.
struct NoteRoutes {
    let store: any ServerStore
    let clock: MonotonicClock

    /// `POST /v2/storage/notes` → 201; a taken `id_string` → 409.
    func write(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        guard let signer = context.signerKey else { throw ServerError.unauthorized() }
        var body = try await decodeBody([String: JSONValue].self, request, context)
        guard body["data"]?.objectValue != nil, body["encrypted_access_key"]?.stringValue != nil,
            let recipient = body["recipient_signing_key"]?.stringValue,
            (try? SigningPublicKey(base64URLEncoded: recipient)) != nil,  // the reason is in the message
            let writer = body["writer_signing_key"]?.stringValue,
            body["writer_encryption_key"]?.stringValue != nil
        else {
            throw ServerError.badRequest(
                "a note needs data, encrypted_access_key, recipient_signing_key, writer_signing_key and writer_encryption_key"
            )
        }
        guard writer == signer else {
            throw ServerError.forbidden("the note must be signed with its writer_signing_key")
        }
        let noteID = SecureRandom.uuid().uuidString.lowercased()
        let created = clock.now()
        // Anonymous writers cannot claim a name (the real service answers with an empty id_string).
        let requestedName = body["id_string"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let idString = context.clientID == nil ? nil : requestedName
        var expiresAt: Timestamp?
        if body["expires"]?.boolValue == true, let text = body["expiration"]?.stringValue {
            guard let expiration = Timestamp(iso8601: text) else {
                throw ServerError.badRequest("expiration is not ISO 8601")
            }
            expiresAt = expiration
        }
        body["note_id"] = .string(noteID)
        body["created_at"] = .string(created.description)
        body["id_string"] = .string(idString ?? "")
        body["client_id"] = context.clientID.map(JSONValue.string) ?? .null
        body["views"] = .number(0)
        let note = StoredNote(
            noteID: noteID,
            idString: idString,
            body: body,
            created: created,
            views: 0,
            maximumViews: body["max_views"]?.integerValue ?? -1,
            expiresAt: expiresAt,
            recipientSigningKey: recipient
        )
        guard try await store.insertNote(note) else { throw ServerError.conflict("a note with that id_string exists") }
        return try json(JSONValue.object(body), status: .created)
    }

    /// `GET /v2/storage/notes?note_id=…` or `?id_string=…`: only the recipient's key reads it; each read counts
    /// against `max_views`; expired or used-up notes are gone (404); a malformed `note_id` is a 400.
    func read(_ request: Request, context: StrongroomRequestContext) async throws -> Response {
        guard let signer = context.signerKey else { throw ServerError.unauthorized() }
        let parameters = request.uri.queryParameters
        let noteID = parameters.get("note_id").map { $0.removingPercentEncoding ?? $0 }
        let idString = parameters.get("id_string").map {
            ($0.replacingOccurrences(of: "+", with: " ")).removingPercentEncoding ?? $0
        }
        if let idString { try requireNoNUL(idString, "id_string") }
        var id: String?
        if let noteID {
            guard let canonical = canonicalUUID(noteID) else { throw ServerError.badRequest("note_id is not a UUID") }
            id = canonical
        } else if idString == nil || idString?.isEmpty == true {
            throw ServerError.badRequest("give note_id or id_string")
        }
        guard
            var note = try await store.viewNote(
                id: id,
                idString: idString,
                recipientSigningKey: signer,
                now: clock.now()
            )
        else { throw ServerError.notFound("no such note") }
        note.body["views"] = .number(Double(note.views))
        return try json(JSONValue.object(note.body))
    }
}
