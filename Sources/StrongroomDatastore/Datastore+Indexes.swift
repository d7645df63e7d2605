// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

extension Datastore {
    /// Defines a query index (CDTDatastore's `ensureIndexed:withName:type:settings:`) and builds it, returning its
    /// name. Calling it again with the same definition does nothing, so apps may call it at every launch.
    ///
    /// Indexes are **updated lazily**, as CDTQ does: each ``find(selector:fields:sort:skip:limit:)`` first applies
    /// the changes committed since the index last caught up (from the changes sequence), in one transaction. Writes
    /// stay as fast as without indexes, and a burst of writes costs one catch-up; the price is paid by the first
    /// query after them. Index entries live in the datastore's own (encrypted) database: no value reaches disk in
    /// the clear.
    ///
    /// - Parameters:
    ///   - fields: dotted field paths, 1 to 16, distinct; `_id` and `_rev` are always indexed and are skipped here.
    ///   - name: a letter, then letters, digits or `_`, at most 64 characters.
    ///   - type: ``QueryIndex/Kind/json`` (the default) or ``QueryIndex/Kind/text`` (FTS5, one per datastore).
    ///   - tokenizer: a text index's tokenizer (``QueryIndex/Tokenizer/simple`` unless given).
    /// - Returns: `name`.
    /// - Throws: ``DatastoreError/Code/invalidArgument`` for a bad name or field, an existing index of that name
    ///   with another definition, a second text index, more than 32 indexes, or text search missing from SQLCipher's
    ///   build.
    @discardableResult
    public func ensureIndexed(
        fields: [String],
        name: String,
        type: QueryIndex.Kind = .json,
        tokenizer: QueryIndex.Tokenizer = .simple
    ) async throws(DatastoreError) -> String {
        let definition = try Self.validatedIndex(fields: fields, name: name, type: type, tokenizer: tokenizer)
        return try await write { store throws(DatastoreError) in
            let indexes = IndexStore(store: store)
            let existing = try indexes.all()
            if let same = existing.first(where: { $0.definition.name == name }) {
                guard same.definition == definition else {
                    throw DatastoreError(
                        .invalidArgument,
                        "an index named \(name) exists with another definition; delete it first"
                    )
                }
                return name
            }
            guard existing.count < IndexStore.maximumIndexes else {
                throw DatastoreError(.invalidArgument, "a datastore has at most \(IndexStore.maximumIndexes) indexes")
            }
            if type == .text {
                guard !existing.contains(where: { $0.definition.kind == .text }) else {
                    throw DatastoreError(.invalidArgument, "a datastore has one text index")
                }
                guard try indexes.isTextSearchEnabled() else {
                    throw DatastoreError(.invalidArgument, "this SQLCipher build has no FTS5, so no text index")
                }
            }
            try indexes.create(definition)
            try indexes.catchUp(try indexes.all().filter { $0.definition.name == name })
            return name
        }
    }

    /// The query indexes by name (CDTDatastore's `listIndexes`).
    public func listIndexes() async throws(DatastoreError) -> [String: QueryIndex] {
        try await read { store throws(DatastoreError) in
            Dictionary(
                uniqueKeysWithValues: try IndexStore(store: store).all().map { ($0.definition.name, $0.definition) }
            )
        }
    }

    /// Deletes a query index and its entries (CDTDatastore's `deleteIndexNamed:`).
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` when there is no such index.
    public func deleteIndex(named name: String) async throws(DatastoreError) {
        try await write { store throws(DatastoreError) in
            let indexes = IndexStore(store: store)
            guard let index = try indexes.all().first(where: { $0.definition.name == name }) else {
                throw DatastoreError(.notFound, "no index named \(name.prefix(64))")
            }
            try indexes.delete(index)
        }
    }

    /// Brings every index up to date now instead of at the next query (CDTDatastore's `updateAllIndexes`).
    public func updateAllIndexes() async throws(DatastoreError) {
        try await write { store throws(DatastoreError) in
            let indexes = IndexStore(store: store)
            try indexes.catchUp(try indexes.all())
        }
    }

    /// Whether text indexes can be made: SQLCipher's build includes FTS5 (CDTDatastore's `isTextSearchEnabled`).
    public func isTextSearchEnabled() async throws(DatastoreError) -> Bool {
        try await read { store throws(DatastoreError) in try IndexStore(store: store).isTextSearchEnabled() }
    }

    /// Runs `body` with the indexes caught up, in one job on the serial executor; the catch-up takes the write
    /// lock only when an index is behind.
    func withIndexes<R: Sendable>(
        catchUp: Bool,
        _ body: @escaping @Sendable (RevisionStore, [StoredIndex]) throws(DatastoreError) -> R
    ) async throws(DatastoreError) -> R {
        let limits = limits
        return try await withConnection { connection throws(DatastoreError) in
            let store = RevisionStore(connection: connection, limits: limits)
            let indexes = IndexStore(store: store)
            let current = try indexes.all()
            // Catching up changes only `last_sequence`, which the planner does not read: `current` stays valid.
            if catchUp, !current.isEmpty {
                let newest = try indexes.newestSequence()
                if current.contains(where: { $0.lastSequence < newest }) {
                    try connection.transaction(mapping: { DatastoreError(storage: $0) }) { () throws(DatastoreError) in
                        try indexes.catchUp(try indexes.all())  // again inside: another process may have caught up
                    }
                }
            }
            return try body(store, current)
        }
    }

    private static func validatedIndex(
        fields: [String],
        name: String,
        type: QueryIndex.Kind,
        tokenizer: QueryIndex.Tokenizer
    ) throws(DatastoreError) -> QueryIndex {
        let nameIsValid =
            (1...64).contains(name.utf8.count) && name.first?.isASCII == true && name.first?.isLetter == true
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0))
            }
        guard nameIsValid else {
            throw DatastoreError(
                .invalidArgument,
                "an index name is 1 to 64 ASCII letters (either case), digits or _, starting with a letter — stricter "
                    + "than a datastore name, which may also hold $()+-, since an index name names tables inside it"
            )
        }
        let kept = type == .json ? fields.filter { $0 != "_id" && $0 != "_rev" } : fields
        guard (1...IndexStore.maximumFields).contains(kept.count), Set(kept).count == kept.count else {
            throw DatastoreError(.invalidArgument, "an index has 1 to \(IndexStore.maximumFields) distinct fields")
        }
        for field in kept {
            let path = IndexStore.path(field)
            let valid =
                field.utf8.count <= 256 && !path.contains(where: { $0.isEmpty || $0.hasPrefix("$") })
                && !field.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                && !(type == .text && field.hasPrefix("_"))
            guard valid else { throw DatastoreError(.invalidArgument, "bad index field \(field.prefix(64))") }
        }
        return QueryIndex(name: name, kind: type, fields: kept, tokenizer: type == .text ? tokenizer : nil)
    }
}
