// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomKeychain
import StrongroomTesting
import StrongroomWire
import Testing

/// Runs every snippet of the DocC article "Porting from CDTDatastore" as written, and checks the article quotes them.
@Suite struct PortingArticleTests {
    @Test(
        "the porting article's snippets run: open both kinds, store and read, resolve a conflict, change the password"
    )
    func article() async throws {
        try await withTemporaryDirectory { root in
            let directory = root.appending(path: "datastores")
            let keychainURL = root.appending(path: "keychain")
            let keychainPassphrase = "keychain passphrase"
            _ = try Keychain.encryptedFile(at: keychainURL, passphrase: keychainPassphrase, parameters: .minimum)

            // porting: open
            let manager = try DatastoreManager(directory: directory)
            let keychain = try Keychain.encryptedFile(at: keychainURL, passphrase: keychainPassphrase)
            let provider = KeychainKeyProvider(password: "correct horse", identifier: "notes", keychain: keychain)
            let notes = try await manager.datastore(named: "notes", keyProvider: provider)
            let cache = try manager.datastore(named: "cache")  // unencrypted, and only because you asked by name
            // end porting
            #expect(notes.isEncrypted && !cache.isEncrypted)

            // porting: documents
            let created = try await notes.createDocument(id: "groceries", body: ["items": .array([.string("milk")])])
            var body = created.body
            body["items"] = .array([.string("milk"), .string("eggs")])
            let updated = try await notes.update(from: created, body: body)
            let current = try await notes.document(id: "groceries")  // the winning revision: updated
            // end porting
            #expect(current == updated)

            // A replicated edit of the first revision makes the document conflicted.
            try await notes.forceInsert(
                docID: "groceries",
                history: ["2-00000000000000000000000000000001", created.revID],
                body: ["items": .array([.string("bread")])]
            )
            #expect(try await notes.conflictedDocumentIDs() == ["groceries"])

            // porting: conflict
            for docID in try await notes.conflictedDocumentIDs() {
                try await notes.resolveConflicts(docID: docID) { leaves in
                    var merged = leaves[0]  // the current winner
                    merged.body["merged"] = .bool(true)
                    return merged  // a changed body is written as a child; the other leaves are deleted
                }
            }
            // end porting
            #expect(try await notes.conflictedDocumentIDs().isEmpty)
            #expect(try await notes.document(id: "groceries")["merged"] == .bool(true))

            _ = try await notes.createDocument(
                id: "weekly",
                body: ["items": ["milk"], "owner": ["name": "ann"], "comment": "the weekly shop"]
            )
            // porting: query
            try await notes.ensureIndexed(fields: ["items", "owner.name"], name: "basic")
            try await notes.ensureIndexed(fields: ["comment"], name: "words", type: .text, tokenizer: .porter)
            let milk = try await notes.find(
                selector: ["items": "milk", "$text": ["$search": "weekly"]],
                sort: [SortField("owner.name")],
                limit: 20
            )
            let plan = try await notes.explain(selector: ["items": "milk"])  // "index basic"
            // end porting
            #expect(milk.map(\.docID) == ["weekly"])
            #expect(plan.description == "index basic")
            await notes.close()

            // porting: password
            try await provider.changePassword(to: "a new, longer passphrase")
            // end porting
            let renewed = KeychainKeyProvider(
                password: "a new, longer passphrase",
                identifier: "notes",
                keychain: keychain
            )
            let reopened = try await manager.datastore(named: "notes", keyProvider: renewed)
            #expect(try await reopened.documentCount() == 2)
            await reopened.close()
            await cache.close()
        }
    }

    @Test("the CDTDatastore porting article quotes each tested snippet verbatim, and every snippet is tested")
    func articleMatchesTests() throws {
        let (quoted, tested) = try ArticleSnippets.compare(
            article: "Sources/StrongroomDatastore/Documentation.docc/PortingFromCDTDatastore.md",
            testFile: #filePath
        )
        #expect(tested.count == 5)
        #expect(Set(quoted.keys) == Set(tested.keys))
        for (name, code) in tested { #expect(quoted[name] == code, "snippet \(name)") }
    }
}
