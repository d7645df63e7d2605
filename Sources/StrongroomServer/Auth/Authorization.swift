// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomWire

/// Who may do what: every authorisation rule of the server, in one place. Routes ask it; none decides for another.
///
/// Rules (E3DB's, with Strongroom's hardening):
/// - a record is read by its writer or user, or by a reader with an allow-read policy, checked on every read, so a
///   revoke takes effect at once;
/// - only the writer (or user) changes or deletes a record, and `writer_id`/`user_id` a client sends name itself;
/// - only the writer commits an uploaded file;
/// - an integrity instance checks in only for the client that registered it;
/// - an access-key slot is managed by its writer, or by an active authorizer for *another* reader's slot (never the
///   writer's own key, never its own);
/// - a policy is changed by its writer; an authorizer may set or clear read for other readers only;
/// - only the writer removes its authorizers;
/// - a type's key is rotated by its writer, or by an active authorizer revoking readers other than the writer,
///   itself and the type's other authorizers; only the writer re-wraps its records.
struct Authorization: Sendable {
    let store: any SharingStore

    /// Whether `caller` may read `record`.
    func mayRead(_ record: StoredRecord, caller: String) async throws -> Bool {
        if caller == record.writerID || caller == record.userID { return true }
        return try await store.policy(for: record.slot(reader: caller))?.canRead == true
    }

    /// Whether `caller` may change or delete `record`: its writer or user.
    func mayChange(_ record: StoredRecord, caller: String) -> Bool {
        caller == record.writerID || caller == record.userID
    }

    /// 403 unless `caller` is the record's writer or user.
    func requireWriter(of record: StoredRecord, caller: String, _ action: String) throws {
        guard mayChange(record, caller: caller) else {
            throw ServerError.forbidden("only the writer may \(action) a record")
        }
    }

    /// 403 unless `caller` wrote the pending file `record` (only its writer commits it; its user does not).
    func requireFileWriter(of record: StoredRecord, caller: String) throws {
        guard caller == record.writerID else { throw ServerError.forbidden("only the writer may commit a file") }
    }

    /// The integrity instance, when it exists and belongs to `caller`; 403 otherwise (a client cannot tell another
    /// client's instance from a missing one).
    func requireOwner(of instance: StoredIntegrityInstance?, caller: String) throws -> StoredIntegrityInstance {
        guard let instance, instance.clientID == caller else {
            throw ServerError.forbidden("no such instance registered for this client")
        }
        return instance
    }

    /// The `writer_id` and `user_id` a client sends must name the caller itself (403 otherwise); absent is fine.
    func requireSelf(_ caller: String, writerID: String?, userID: String?) throws {
        if let writerID, canonicalUUID(writerID) != caller {
            throw ServerError.forbidden("writer_id must be the caller")
        }
        if let userID, canonicalUUID(userID) != caller { throw ServerError.forbidden("user_id must be the caller") }
    }

    /// The checks a new record or file passes before anything is stored: its `writer_id`/`user_id` name the caller
    /// (403), its type is 1 to `maximumNameBytes` bytes and its plain meta within `maximumPlainBytes` (400).
    /// Returns the type.
    func requireNewRecord(_ meta: some NewRecordMeta, by caller: String, limits: ServerLimits) throws -> String {
        try requireSelf(caller, writerID: meta.writerID, userID: meta.userID)
        let type = try requireType(meta.type, limits)
        try requirePlain(meta.plain, limits)
        return type
    }

    /// 403 unless `caller` is the slot's reader (only a reader fetches its own access key).
    func requireReader(of slot: AccessKeySlot, caller: String) throws {
        guard caller == slot.readerID else { throw ServerError.forbidden("only the reader may fetch its access key") }
    }

    /// 403 unless `caller` may store or delete the slot's access key.
    func requireKeyManager(of slot: AccessKeySlot, caller: String, _ action: String) async throws {
        guard try await isWriterOrAuthorizerForOthers(slot, caller: caller) else {
            throw ServerError.forbidden("only the writer or its authorizer may \(action) access keys")
        }
    }

    /// 403 unless `caller` may make this change to the slot's policy.
    func requirePolicyChange(_ slot: AccessKeySlot, caller: String, changesAuthorizer: Bool) async throws {
        if caller == slot.writerID && caller == slot.userID { return }
        let grant = try await store.policy(for: slot.withReader(caller))
        guard grant?.isAuthorizer == true, !changesAuthorizer else {
            throw ServerError.forbidden("only the writer, or its authorizer for read, may change this policy")
        }
        guard slot.readerID != caller else {
            throw ServerError.forbidden("an authorizer may share with other readers, not with itself")
        }
    }

    /// 403 unless `caller` is the writer (and user) named by a path.
    func requireWriter(writerID: String, userID: String, caller: String) throws {
        guard caller == writerID && caller == userID else { throw ServerError.forbidden("only the writer may do this") }
    }

    /// 403 unless `caller` may read the generation of `scope` and rotate it: its writer, or an active authorizer of
    /// the type (which holds the key and shares it on the writer's behalf, so may also replace it after a revoke).
    func requireRotator(of scope: AccessKeyScope, caller: String) async throws {
        if caller == scope.writerID && caller == scope.userID { return }
        guard try await store.policy(for: scope.slot(reader: caller))?.isAuthorizer == true else {
            throw ServerError.forbidden("only the writer or its authorizer may rotate this type's key")
        }
    }

    /// 403 unless an authorizer `caller` may revoke each of `readers` in a rotation: never the writer, itself or
    /// another authorizer of the type (as for ``requirePolicyChange(_:caller:changesAuthorizer:)``); the writer
    /// may revoke any reader but itself.
    func requireRevocable(_ readers: some Sequence<String>, of scope: AccessKeyScope, caller: String) async throws {
        if caller == scope.writerID && caller == scope.userID { return }
        for reader in readers {
            guard reader != caller, reader != scope.writerID, reader != scope.userID,
                try await store.policy(for: scope.slot(reader: reader))?.isAuthorizer != true
            else {
                throw ServerError.forbidden("an authorizer may revoke readers, not itself, the writer or an authorizer")
            }
        }
    }

    private func isWriterOrAuthorizerForOthers(_ slot: AccessKeySlot, caller: String) async throws -> Bool {
        if caller == slot.writerID && caller == slot.userID { return true }
        guard slot.readerID != slot.writerID, slot.readerID != slot.userID, slot.readerID != caller else {
            return false
        }
        return try await store.policy(for: slot.withReader(caller))?.isAuthorizer == true
    }
}

/// The client-supplied meta of a new record or file, checked by ``Authorization/requireNewRecord(_:by:limits:)``.
protocol NewRecordMeta {
    var writerID: String? { get }
    var userID: String? { get }
    var type: String? { get }
    var plain: [String: String]? { get }
}

extension RecordWriteRequest.Meta: NewRecordMeta {}
extension FileWriteRequest.Meta: NewRecordMeta {}
