// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomSQLite

extension RevisionStore {
    /// Removes revisions of the document in row `docRow`, as if never written, inside the caller's transaction.
    ///
    /// A leaf goes when `listed` names it (every leaf when `listed` is nil); an ancestor goes once all its children
    /// have gone, whether listed or not, so the tree stays whole: a listed revision that still has a child not
    /// removed (an edit made where the purge was not known) stays as that child's ancestor. When nothing is left the
    /// document row goes too, and the caller refreshes its query-index entries either way.
    ///
    /// With `onlyListed`, an ancestor goes only when `listed` names it too; one that is kept and has lost all its
    /// children becomes a leaf again. When such a revision's body is gone (a local compaction dropped it), nothing
    /// of the document is removed: a leaf without a body cannot be the document again.
    ///
    /// - Returns: the revision IDs removed and the attachment files their rows named.
    func purge(
        docRow: Int64,
        listed: Set<String>?,
        onlyListed: Bool = false
    ) throws(SQLiteError) -> (removed: [String], files: Set<String>) {
        struct Node {
            var revID: String
            var parent: Int64?
            var isLeaf: Bool
            var children = 0
        }
        var nodes: [Int64: Node] = [:]
        var bodiless = Set<Int64>()
        try connection.withStatement(
            "SELECT sequence, revid, parent, current, json IS NULL FROM revs WHERE doc_id = ?"
        ) { statement throws(SQLiteError) in
            try statement.bind(docRow, at: 1)
            while try statement.step() {
                nodes[statement.int64(at: 0)] = Node(
                    revID: statement.text(at: 1) ?? "",
                    parent: statement.isNull(at: 2) ? nil : statement.int64(at: 2),
                    isLeaf: statement.int64(at: 3) != 0
                )
                if statement.int64(at: 4) != 0 { bodiless.insert(statement.int64(at: 0)) }
            }
        }
        for node in nodes.values { if let parent = node.parent { nodes[parent]?.children += 1 } }
        // A worklist from the leaves to remove towards the root: linear in the tree's size.
        var pending = nodes.filter { $0.value.isLeaf && (listed?.contains($0.value.revID) ?? true) }.map(\.key)
        var (removed, restored): ([Int64], [Int64]) = ([], [])
        while let sequence = pending.popLast() {
            removed.append(sequence)
            guard let parent = nodes[sequence]?.parent, var node = nodes[parent] else { continue }
            node.children -= 1
            nodes[parent] = node
            guard node.children == 0 else { continue }
            if onlyListed, !(listed?.contains(node.revID) ?? true) {
                restored.append(parent)
            } else {
                pending.append(parent)
            }
        }
        if restored.contains(where: bodiless.contains) { return ([], []) }
        var files: Set<String> = []
        // Sequences only grow, also when the newest revisions go: the next write numbers from above these.
        if let highest = removed.max() { try raiseSequenceFloor(to: highest) }
        // Children before parents (a child's sequence is always higher): the foreign keys hold at every step.
        for sequence in removed.sorted(by: >) {
            files.formUnion(try attachmentRows(sequence: sequence).map(\.file))
            try connection.withStatement("DELETE FROM attachments WHERE sequence = ?") {
                statement throws(SQLiteError) in
                try statement.bind(sequence, at: 1)
                try statement.run()
            }
            try connection.withStatement("DELETE FROM revs WHERE sequence = ?") { statement throws(SQLiteError) in
                try statement.bind(sequence, at: 1)
                try statement.run()
            }
        }
        for sequence in restored {
            try connection.withStatement("UPDATE revs SET current = 1 WHERE sequence = ?") {
                statement throws(SQLiteError) in
                try statement.bind(sequence, at: 1)
                try statement.run()
            }
        }
        if removed.count == nodes.count {
            try connection.withStatement("DELETE FROM docs WHERE doc_id = ?") { statement throws(SQLiteError) in
                try statement.bind(docRow, at: 1)
                try statement.run()
            }
        }
        return (removed.compactMap { nodes[$0]?.revID }, files)
    }

    /// Records `sequence` as the lowest the next revision may be given minus one, unless the floor is higher already.
    private func raiseSequenceFloor(to sequence: Int64) throws(SQLiteError) {
        try connection.withStatement(
            """
            INSERT INTO info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
            WHERE CAST(excluded.value AS INTEGER) > CAST(info.value AS INTEGER)
            """
        ) { statement throws(SQLiteError) in
            try statement.bind(Schema.sequenceFloorKey, at: 1)
            try statement.bind(String(sequence), at: 2)
            try statement.run()
        }
    }

    /// Notes revisions a replicated purge removed (or named), so a pull does not take them back.
    func rememberPurged(docID: String, revIDs: some Sequence<String>) throws(SQLiteError) {
        try connection.withStatement("INSERT OR IGNORE INTO purged_revisions (docid, revid) VALUES (?, ?)") {
            statement throws(SQLiteError) in
            for revID in revIDs {
                try statement.bind(docID, at: 1)
                try statement.bind(revID, at: 2)
                try statement.run()
            }
        }
    }

    /// Whether a replicated purge removed revision `revID` of `docID`.
    func wasPurged(docID: String, revID: String) throws(SQLiteError) -> Bool {
        try connection.withStatement("SELECT 1 FROM purged_revisions WHERE docid = ? AND revid = ?") {
            statement throws(SQLiteError) in
            try statement.bind(docID, at: 1)
            try statement.bind(revID, at: 2)
            return try statement.step()
        }
    }
}
