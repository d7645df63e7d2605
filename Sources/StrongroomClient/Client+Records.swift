// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Encrypts `data` under this client's key for `type` and stores it.
    ///
    /// - Parameters:
    ///   - type: the record type (one access key per type).
    ///   - data: the field values; encrypted field by field before they leave the process.
    ///   - plain: plaintext metadata the server can search on (it is **not** encrypted).
    /// - Returns: the stored record, with its plaintext.
    /// - Throws: ``ClientError/Code/badRequest`` (for example empty `data`), ``ClientError/Code/unauthorized``,
    ///   ``ClientError/Code/transport``.
    public func write(
        type: String,
        data: [String: String],
        plain: [String: String] = [:]
    ) async throws(ClientError)
        -> Record
    {
        let signature = recordSignature(type: type, plain: plain, data: data)
        let answer = try await withCurrentKey(type: type) { key, generation throws(ClientError) in
            let request = RecordWriteRequest(
                meta: .init(writerID: clientID, userID: clientID, type: type, plain: plain),
                data: FieldCipher.encrypt(fields: data, with: key),
                recordSignature: signature
            )
            return try await self.answer(
                .POST,
                E3DBPath.records.render(),
                headers: Self.fence(generation),
                body: request,
                success: [201]
            ).data
        }
        let response = try Transport.decode(RecordResponse.self, from: answer)
        return Record(meta: try Meta(response.meta), data: data)
    }

    /// Runs `body` with this client's current key for `type` and its generation (for ``fence(_:)``), the fence on
    /// writes (docs/design/Revocation.md, "The fence"): when another device of this client rotated the type
    /// meanwhile, the server refuses the old generation, and `body` runs again with the current key (three times at
    /// most).
    func withCurrentKey<R>(
        type: String,
        _ body: (AccessKey, _ generation: Int?) async throws(ClientError) -> R
    ) async throws(ClientError) -> R {
        var attempt = 1
        while true {
            let (key, generation) = try await writerKeyEntry(type: type)
            do {
                return try await body(key, generation)
            } catch  where error.isStaleKeyGeneration && attempt < 3 {
                await dropWriterKey(type: type)
                attempt += 1
            }
        }
    }

    /// Reads and decrypts a record, optionally only some of its fields.
    ///
    /// - Throws: ``ClientError/Code/notFound``, ``ClientError/Code/forbidden`` (not shared with this client),
    ///   ``ClientError/Code/tampered`` when any field does not decrypt (nothing is returned then).
    public func read(recordID: UUID, fields: [String]? = nil) async throws(ClientError) -> Record {
        var path = E3DBPath.record.render(RecordID(recordID).description)
        if let fields, !fields.isEmpty {
            path += "?" + fields.map { "field=\(segment($0))" }.joined(separator: "&")
        }
        let response = try await authenticated(.GET, path, success: [200], as: RecordResponse.self)
        return try await decrypt(
            meta: response.meta,
            data: response.data,
            inlineKey: nil,
            signature: fields?.isEmpty == false ? nil : response.recordSignature
        )
    }

    /// Replaces a record's data (and plain metadata) if it is still at `meta.version`.
    ///
    /// - Throws: ``ClientError/Code/conflict`` when the record changed since `meta` was read: nothing was written.
    public func update(
        meta: Meta,
        newData: [String: String],
        plain: [String: String]? = nil
    ) async throws(ClientError)
        -> Record
    {
        let signature = recordSignature(type: meta.type, plain: plain ?? meta.plain, data: newData)
        let path = E3DBPath.recordVersion.render(RecordID(meta.recordID).description, meta.version)
        let answer = try await withCurrentKey(type: meta.type) { key, generation throws(ClientError) in
            let request = RecordWriteRequest(
                meta: .init(writerID: clientID, userID: clientID, type: meta.type, plain: plain ?? meta.plain),
                data: FieldCipher.encrypt(fields: newData, with: key),
                recordSignature: signature
            )
            return try await self.answer(.PUT, path, headers: Self.fence(generation), body: request, success: [200])
                .data
        }
        let response = try Transport.decode(RecordResponse.self, from: answer)
        return Record(meta: try Meta(response.meta), data: newData)
    }

    /// Deletes a record if it is still at `version`.
    ///
    /// - Throws: ``ClientError/Code/conflict`` for a stale version, ``ClientError/Code/forbidden`` when the record
    ///   is not this client's (or does not exist).
    public func delete(recordID: UUID, version: String) async throws(ClientError) {
        try await authenticated(
            .DELETE,
            E3DBPath.recordVersion.render(RecordID(recordID).description, version),
            success: [204]
        )
    }

    /// `rec_sig` for a record this client writes: its Ed25519 signature over meta and plaintext, in the JS SDK's
    /// form, so readers can tell its fields were not swapped or replaced.
    func recordSignature(type: String, plain: [String: String], data: [String: String]) -> String {
        let info = RecordInfo(
            writerID: configuration.clientID,
            userID: configuration.clientID,
            type: type,
            plain: plain,
            data: data
        )
        return Base64URL.encode(configuration.keys.signingKey.signature(for: info))
    }

    /// Decrypts a record's fields with the key of its writer, user and type, then verifies `rec_sig` when the
    /// record has one (whole records only: a signature covers every field).
    ///
    /// Records written by this client verify with its own key; others' with the signing key the server lists for
    /// the writer. Records without `rec_sig` (the Python, Go and Java SDKs write none) are accepted as E3DB does,
    /// unless `requiringSignature` (revision records, which Strongroom always signs): then a record without one, or
    /// whose writer has no signing key, is ``ClientError/Code/tampered`` — file records excepted, whose bodies are
    /// authenticated by their own encryption.
    func decrypt(
        meta wire: RecordMeta,
        data: [String: String],
        inlineKey: AccessKeyResponse?,
        signature: String?,
        requiringSignature: Bool = false
    ) async throws(ClientError)
        -> Record
    {
        let record = try await decrypt(meta: wire, data: data, inlineKey: inlineKey)
        guard let signature, !record.data.isEmpty else {
            // A file record's body is authenticated by its own encryption; its record carries no signature.
            if requiringSignature, wire.fileMeta == nil {
                throw ClientError(.tampered, "record \(wire.recordID) carries no signature of its writer")
            }
            return record
        }
        guard let signer = try await signingKey(of: record.meta.writerID) else {
            if requiringSignature {
                throw ClientError(.tampered, "the writer of record \(wire.recordID) has no signing key to verify it")
            }
            return record
        }
        let info = RecordInfo(
            writerID: record.meta.writerID,
            userID: record.meta.userID,
            type: record.meta.type,
            plain: record.meta.plain,
            data: record.data
        )
        guard signature.utf8.count <= 128, let bytes = try? Base64URL.decode(signature) else {
            throw ClientError(.tampered, "record \(wire.recordID)'s signature is malformed")
        }
        if (try? signer.verify(bytes, for: info)) != nil { return record }
        // Signed before its writer changed keys, or after (a cached key): any key its proven chain holds.
        let history: [SigningPublicKey]
        do {
            history = try await signingKeyHistory(of: record.meta.writerID)
        } catch {
            throw ClientError(
                .tampered,
                "record \(wire.recordID) does not match its writer's signature (fields swapped or replaced)",
                underlying: error
            )
        }
        if let newest = history.first, newest != signer, record.meta.writerID != configuration.clientID {
            await writerSigningKeys.store(newest, for: record.meta.writerID)  // the cached key was replaced since
        }
        for key in history where key != signer && (try? key.verify(bytes, for: info)) != nil { return record }
        throw ClientError(
            .tampered,
            "record \(wire.recordID) does not match its writer's signature (fields swapped or replaced)"
        )
    }

    /// Decrypts a record's fields with the key of its writer, user and type.
    private func decrypt(
        meta wire: RecordMeta,
        data: [String: String],
        inlineKey: AccessKeyResponse?
    ) async throws(ClientError)
        -> Record
    {
        let meta = try Meta(wire)
        guard !data.isEmpty else { return Record(meta: meta, data: [:]) }
        let cached = await accessKeys.key(writerID: wire.writerID, userID: wire.userID, type: wire.type)
        let key: AccessKey
        if let cached {
            key = cached
        } else {
            key = try await currentKey(of: wire, inlineKey: inlineKey)
        }
        do {
            return Record(meta: meta, data: try FieldCipher.decrypt(fields: data, with: key))
        } catch {
            // An older generation already reached from this key (a replicated type's revisions stay under the
            // generation they were written in): no request.
            let known = await accessKeys.olderKeys(
                below: key,
                writerID: wire.writerID,
                userID: wire.userID,
                type: wire.type
            )
            if let fields = Self.decrypt(data, underAnyOf: known?.keys ?? []) {
                return Record(meta: meta, data: fields)
            }
            // A cached key may be a generation behind: after the writer rotated (docs/design/Revocation.md) its
            // records are under the new key. The key is fetched once more.
            var current = key
            if cached != nil {
                await accessKeys.remove(writerID: wire.writerID, userID: wire.userID, type: wire.type)
                current = try await currentKey(of: wire, inlineKey: inlineKey)
                if current != key, let fields = try? FieldCipher.decrypt(fields: data, with: current) {
                    return Record(meta: meta, data: fields)
                }
            }
            // A record may be under an older generation: a replicated type's revisions are never re-wrapped, and
            // a rotation's re-wrap may not have reached it yet. Only a record that no generation opens is tampered.
            let older = try await olderKeys(
                below: current,
                writerID: wire.writerID,
                userID: wire.userID,
                type: wire.type
            )
            if let fields = Self.decrypt(data, underAnyOf: older.keys) { return Record(meta: meta, data: fields) }
            throw ClientError(.tampered, "a field of record \(wire.recordID) did not decrypt", underlying: error)
        }
    }

    /// `data` decrypted under the first of `keys` that opens every field; nil when none does.
    private static func decrypt(_ data: [String: String], underAnyOf keys: [AccessKey]) -> [String: String]? {
        for key in keys {
            if let fields = try? FieldCipher.decrypt(fields: data, with: key) { return fields }
        }
        return nil
    }

    /// The key of `wire`'s writer, user and type as the server holds it now (and cached): the EAK a search result
    /// carries inline (no extra request), or the one fetched.
    private func currentKey(of wire: RecordMeta, inlineKey: AccessKeyResponse?) async throws(ClientError) -> AccessKey {
        guard let inlineKey else {
            return try await readerKey(writerID: wire.writerID, userID: wire.userID, type: wire.type)
        }
        // This client's own key, which it also encrypts under, is taken only as the fetch checks it (who sealed it,
        // its generation): an inline key sealed by anyone else could be one the server chose.
        // A key sealed post-quantum only is opened as a fetch opens it (the wrap binds the generation the fetch
        // names); with a classical EAK beside it, the inline one serves.
        let isOwn = wire.writerID.lowercased() == clientID && wire.userID.lowercased() == clientID
        if (isOwn && !isSealedBySelf(inlineKey)) || inlineKey.eak.isEmpty
            || configuration.postQuantum.refusesClassicalOnly(wire.type)
        {
            return try await readerKey(writerID: wire.writerID, userID: wire.userID, type: wire.type)
        }
        let key = try open(inlineKey)
        await accessKeys.store(key, writerID: wire.writerID, userID: wire.userID, type: wire.type)
        return key
    }
}

extension Meta {
    /// The public form of the wire meta; IDs must be UUIDs.
    init(_ wire: RecordMeta) throws(ClientError) {
        guard let recordID = UUID(uuidString: wire.recordID), let writerID = UUID(uuidString: wire.writerID),
            let userID = UUID(uuidString: wire.userID)
        else { throw ClientError(.invalidResponse, "the server returned record IDs that are not UUIDs") }
        self.init(
            recordID: recordID,
            writerID: writerID,
            userID: userID,
            type: wire.type,
            plain: wire.plain,
            created: Date(timeIntervalSince1970: Double(wire.created.microseconds) / 1_000_000),
            lastModified: Date(timeIntervalSince1970: Double(wire.lastModified.microseconds) / 1_000_000),
            version: wire.version,
            fileMeta: wire.fileMeta.map {
                FileMeta(size: $0.size, checksum: $0.checksum, compression: $0.compression, fileName: $0.fileName)
            }
        )
    }
}
