// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Hummingbird
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Notes (`/v2/storage/notes`): one-off encrypted messages addressed to a signing key, written and read with
/// TSV1. The server stores the note's JSON as sent (ciphertext, public keys, options) and adds its own fields.
struct NoteRoutes {
    let store: any NoteStore
    let clock: ServerClock
    let limits: ServerLimits

    /// Its paths, behind TSV1 authentication.
    var routes: RouteCollection<StrongroomRequestContext> {
        let routes = RouteCollection(context: StrongroomRequestContext.self)
        routes.post(RouterPath(.notes), use: write)
        routes.get(RouterPath(.notes), use: read)
        return routes
    }

    /// `POST /v2/storage/notes` → 201; a taken `id_string` → 409; a malformed `max_views` or name → 400; a note
    /// above ``ServerLimits/maximumNoteBytes`` → 413; past the writer key's or the server's note quota (count or
    /// bytes) → 429. A note expires after ``ServerLimits/defaultNoteLifetime`` at the latest.
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
        let created = clock.timestamp()
        // Anonymous writers cannot claim a name (the real service answers with an empty id_string).
        let requestedName = body["id_string"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if let requestedName, requestedName.utf8.count > limits.maximumNameBytes {
            throw ServerError.badRequest("id_string is at most \(limits.maximumNameBytes) bytes")
        }
        let idString = context.clientID == nil ? nil : requestedName
        let maximumViews = try Self.maximumViews(body["max_views"], limit: limits.maximumNoteViews)
        var expiresAt = Timestamp(
            microseconds: created.microseconds.addingSaturating(limits.defaultNoteLifetime.microseconds)
        )
        if body["expires"]?.boolValue == true, let text = body["expiration"]?.stringValue {
            guard let expiration = Timestamp(iso8601: text) else {
                throw ServerError.badRequest("expiration is not ISO 8601")
            }
            // Never later than the server's longest note lifetime: a note cannot hold a quota for good (the stored
            // note says when it really expires).
            if expiration > expiresAt {
                body["expiration"] = .string(expiresAt.description)
            } else {
                expiresAt = expiration
            }
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
            maximumViews: maximumViews,
            expiresAt: expiresAt,
            recipientSigningKey: recipient,
            writerSigningKey: writer,
            source: context.clientID == nil ? NoteSource.key(for: context.sourceAddress) : nil
        )
        // The store measures what it stores (the body with the server's fields) once, against every byte limit.
        let quota = NoteQuota(
            perKey: limits.notesPerKey,
            total: limits.notesTotal,
            bytesPerKey: limits.noteBytesPerKey,
            bytesTotal: limits.noteBytesTotal,
            bytesPerNote: limits.maximumNoteBytes,
            perSource: limits.notesPerSource
        )
        switch try await store.insertNote(note, quota: quota) {
        case .inserted: return try json(JSONValue.object(body), status: .created)
        case .nameTaken: throw ServerError.conflict("a note with that id_string exists")
        case .tooLarge: throw ServerError(.tooLarge, "a note is at most \(limits.maximumNoteBytes) bytes of JSON")
        case .quotaExceeded:
            throw ServerError(.quotaExceeded, "too many live notes; wait for some to expire")
        }
    }

    /// `max_views`: absent or -1 (unlimited, as are 0 and any negative the SDKs send), or a whole number up to
    /// `limit`. Fractions, exponents beyond `Int64` and non-numbers are a 400, never a conversion trap.
    static func maximumViews(_ value: JSONValue?, limit: Int64) throws -> Int64 {
        guard let value, value != .null else { return -1 }
        guard let views = value.integerValue, views <= limit else {
            throw ServerError.badRequest("max_views must be -1 or a whole number from 1 to \(limit)")
        }
        return max(views, -1)
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
        let lookup: NoteLookup
        if let noteID {
            guard let canonical = canonicalUUID(noteID) else { throw ServerError.badRequest("note_id is not a UUID") }
            lookup = .id(canonical)
        } else if let idString, !idString.isEmpty {
            lookup = .name(idString)
        } else {
            throw ServerError.badRequest("give note_id or id_string")
        }
        guard var note = try await store.viewNote(lookup, recipientSigningKey: signer, now: clock.timestamp()) else {
            throw ServerError.notFound("no such note")
        }
        note.body["views"] = .number(Double(note.views))
        return try json(JSONValue.object(note.body))
    }
}
