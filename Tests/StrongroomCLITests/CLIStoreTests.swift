// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom store …` end to end: a key file, put, get, import, list, changes, check, compact, rekey; failures
/// have their exit codes and leave nothing behind.
@Suite struct CLIStoreTests {
    @Test(
        "a store session: put, update, get, import, list, changes, check, compact, rekey; wrong keys and bad input fail"
    )
    func session() async throws {
        try await withTemporaryDirectory { home in
            let cli = CLISessionTests.CLI(url: "", home: home)
            _ = try await cli.ok(["keys", "access-key", "--output", "notes.key"])
            let store = [
                "--directory", home.appending(path: "stores").path, "--name", "notes", "--key-file", "notes.key",
            ]

            let put = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "put", "--create", "--id", "first"] + store,
                directory: home,
                input: #"{"title": "Porting", "stars": 5}"#
            )
            #expect(put.status == 0, "\(put.output)")
            let rev = try #require(
                put.output.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            )
            #expect(rev.hasPrefix("1-"))
            let updated = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "put", "--id", "first", "--rev", rev] + store,
                directory: home,
                input: #"{"title": "Porting", "stars": 4}"#
            )
            #expect(updated.status == 0 && updated.output.contains("first 2-"), "\(updated.output)")
            let stale = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "put", "--id", "first", "--rev", rev] + store,
                directory: home,
                input: #"{"stale": true}"#
            )
            #expect(stale.status == 9, "a stale revision is a conflict: \(stale.output)")
            #expect(try await cli.ok(["store", "get", "--id", "first"] + store).contains(#""stars":4"#))

            let imported = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "import"] + store,
                directory: home,
                input: "{\"_id\": \"a\"}\n{\"_id\": \"b\", \"x\": [1, 2]}\n"
            )
            #expect(imported.status == 0 && imported.output.split(separator: "\n").count == 2, "\(imported.output)")
            #expect(try await cli.ok(["store", "list"] + store).split(separator: "\n").count == 3)
            let changes = try await cli.ok(["store", "changes", "--since", "1"] + store)
            #expect(changes.split(separator: "\n").map { $0.split(separator: " ")[1] } == ["first", "a", "b"])
            // --json: one value per command, [] when empty.
            let listed = try JSONSerialization.jsonObject(
                with: Data(try await cli.ok(["store", "list", "--json"] + store).utf8)
            )
            #expect((listed as? [[String: String]])?.compactMap { $0["id"] } == ["a", "b", "first"])
            let feed = try JSONSerialization.jsonObject(
                with: Data(try await cli.ok(["store", "changes", "--json", "--since", "1"] + store).utf8)
            )
            let results = (feed as? [String: Any])?["results"] as? [[String: Any]]
            #expect(results?.compactMap { $0["id"] as? String } == ["first", "a", "b"])
            #expect((feed as? [String: Any])?["last_seq"] as? Int == 4)
            #expect(try await cli.ok(["store", "conflicts", "--json"] + store) == "[]")
            #expect(try await cli.ok(["store", "check"] + store) == "ok 3 documents")
            try Data("attached canary".utf8).write(to: home.appending(path: "note.txt"))
            let attached = try await cli.ok(
                [
                    "store", "attach", "--id", "a", "--attachment", "note.txt", "--content-type", "text/plain",
                    "note.txt",
                ]
                    + store
            )
            #expect(attached.hasPrefix("a 2-"))
            _ = try await cli.ok(
                ["store", "attachment", "--id", "a", "--attachment", "note.txt", "--output", "out.txt"] + store
            )
            #expect(try String(contentsOf: home.appending(path: "out.txt"), encoding: .utf8) == "attached canary")
            #expect(try await cli.ok(["store", "compact"] + store) == "removed 2 bodies")
            #expect(try await cli.ok(["store", "find", #"{"x": {"$size": 2}}"#] + store).hasPrefix("b 1-"))
            let history = try await cli.ok(["store", "history", "--id", "first"] + store).split(separator: "\n")
            #expect(history.count == 2 && history[1].hasSuffix("compacted"))
            #expect(try await cli.ok(["store", "conflicts"] + store).isEmpty)
            let tombstone = try await cli.ok(["store", "delete", "--id", "b", "--all-leaves"] + store)
            #expect(tombstone.hasPrefix("b 2-"))
            try await cli.fails(["store", "resolve", "--id", "a", "--keep", "1-x"] + store, status: 9)
            try await cli.fails(["store", "find", #"{"x": {"$bogus": 1}}"#] + store, status: 4)

            _ = try await cli.ok(["keys", "access-key", "--output", "new.key"])
            #expect(try await cli.ok(["store", "rekey", "--new-key-file", "new.key"] + store) == "rekeyed")
            try await cli.fails(["store", "list"] + store, status: 3)  // the old key no longer opens it
            let renewed = Array(store.dropLast()) + ["new.key"]
            #expect(try await cli.ok(["store", "check"] + renewed) == "ok 2 documents")

            let bad = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "put"] + renewed,
                directory: home,
                input: "[1, 2]"
            )
            #expect(bad.status == 4, "\(bad.output)")
            try await cli.fails(["store", "get", "--id", "missing"] + renewed, status: 7)
            try await cli.fails(["store", "list", "--unencrypted"] + Array(store.prefix(4)), status: 3)
            try await cli.fails(
                ["store", "list", "--directory", home.path, "--name", "../x", "--unencrypted"],
                status: 5
            )
            #expect(try await cli.ok(["store", "check"] + renewed) == "ok 2 documents")
            // Key files may also be hex or raw bytes.
            let hex = String(repeating: "ab", count: 32)
            try Data((hex + "\n").utf8).write(to: home.appending(path: "hex.key"))
            try Data(repeating: 0xAB, count: 32).write(to: home.appending(path: "raw.key"))
            let hexStore = [
                "--directory", home.appending(path: "stores").path, "--name", "hexed", "--key-file", "hex.key",
            ]
            #expect(try await cli.ok(["store", "create"] + hexStore) == "created hexed, encrypted (key file)")
            _ = try await cli.ok(["store", "list"] + Array(hexStore.dropLast()) + ["raw.key"])  // the same key
            try Data("not a key".utf8).write(to: home.appending(path: "bad.key"))
            try await cli.fails(["store", "list"] + Array(hexStore.dropLast()) + ["bad.key"], status: 5)
            let findings = try PlaintextScan.scan(
                home.appending(path: "stores"),
                for: ["Porting", "title", "first", "attached canary"]
            )
            #expect(findings.isEmpty, "\(findings)")
        }
    }

    @Test("reading never creates: a missing datastore is 'not found' (7) and leaves no folder and no keychain item")
    func readingNeverCreates() async throws {
        try await withTemporaryDirectory { home in
            let cli = CLISessionTests.CLI(url: "", home: home)
            _ = try await cli.ok(["keys", "access-key", "--output", "notes.key"])
            try Data("keychain pass\n".utf8).write(to: home.appending(path: "kc.pass"))
            try Data("a password\n".utf8).write(to: home.appending(path: "store.pass"))
            let keychain = ["--keychain-file", "kc", "--passphrase-file", "kc.pass"]
            _ = try await cli.ok(["keychain", "create", "--kdf", "minimum"] + keychain)
            let folder = home.appending(path: "stores")
            let place = ["--directory", folder.path, "--name", "typo"]
            let sources = [
                ["--key-file", "notes.key"], ["--unencrypted"],
                keychain + ["--password-file", "store.pass", "--kdf", "minimum"],
            ]
            for source in sources {
                for command in [
                    ["list"], ["check"], ["find", "{}"], ["get", "--id", "x"], ["conflicts"], ["compact"],
                ] {
                    try await cli.fails(["store"] + command + place + source, status: 7)
                }
                let put = try await ExternalProcess.run(
                    CLISessionTests.CLI.executable,
                    arguments: ["store", "put"] + place + source,
                    directory: home,
                    input: #"{"a": 1}"#
                )
                #expect(put.status == 7, "\(put.output)")
                #expect(put.output.contains("store create"), "\(put.output)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.path), "a read created the datastore folder")
            let items = try await cli.ok(["keychain", "list"] + keychain)
            #expect(items == "none", "a read wrapped a key in the keychain: \(items)")
            // --create on put makes it; then reads find it.
            let created = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "put", "--create", "--id", "one"] + place + ["--key-file", "notes.key"],
                directory: home,
                input: #"{"a": 1}"#
            )
            #expect(created.status == 0, "\(created.output)")
            #expect(try await cli.ok(["store", "check"] + place + ["--key-file", "notes.key"]) == "ok 1 documents")
        }
    }

    @Test("a password session: keychain-wrapped key, create, indexes, explain, $text, change-password, progress")
    func passwordSession() async throws {
        try await withTemporaryDirectory { home in
            let cli = CLISessionTests.CLI(url: "", home: home)
            try Data("keychain pass\n".utf8).write(to: home.appending(path: "kc.pass"))
            try Data("first password\n".utf8).write(to: home.appending(path: "old.pass"))
            try Data("second password\n".utf8).write(to: home.appending(path: "new.pass"))
            let keychain = ["--keychain-file", "kc", "--passphrase-file", "kc.pass"]
            _ = try await cli.ok(["keychain", "create", "--kdf", "minimum"] + keychain)
            let place = ["--directory", home.appending(path: "stores").path, "--name", "journal"]
            let store = place + keychain + ["--password-file", "old.pass", "--kdf", "minimum"]

            #expect(
                try await cli.ok(["store", "create"] + store)
                    == "created journal, encrypted (password, key in the keychain)"
            )
            try await cli.fails(["store", "create"] + store, status: 9)
            try await cli.fails(["store", "list"] + place + ["--unencrypted", "--password"], status: 64)
            try await cli.fails(["store", "list"] + place, status: 64)  // no key source at all

            let entries = [
                #"{"_id": "d1", "mood": "calm", "day": 3, "text": "Walked by the river and read a book"}"#,
                #"{"_id": "d2", "mood": "busy", "day": 1, "text": "Meetings all day"}"#,
                #"{"_id": "d3", "mood": "calm", "day": 2, "text": "Reading in the garden"}"#,
            ]
            let imported = try await ExternalProcess.run(
                CLISessionTests.CLI.executable,
                arguments: ["store", "import"] + store,
                directory: home,
                input: entries.joined(separator: "\n")
            )
            #expect(imported.status == 0, "\(imported.output)")
            #expect(
                try await cli.ok(["store", "index", "create", "--index-name", "moods", "mood", "day"] + store)
                    == "indexed moods"
            )
            #expect(
                try await cli.ok(
                    ["store", "index", "create", "--index-name", "words", "--text", "--tokenizer", "porter", "text"]
                        + store
                ) == "indexed words"
            )
            let listed = try await cli.ok(["store", "index", "list"] + store)
            #expect(listed == "moods json mood,day\nwords text text tokenizer=porter")
            let query = #"{"mood": "calm"}"#
            #expect(
                try await cli.ok(["store", "find", query, "--sort", "day", "--explain"] + store)
                    == "index moods; sort by index moods"
            )
            #expect(try await cli.ok(["store", "find", query, "--sort=-day"] + store).hasPrefix("d1 1-"))
            // --json is one array, [] for no match.
            let array = try await cli.ok(["store", "find", query, "--json"] + store)
            #expect((try JSONSerialization.jsonObject(with: Data(array.utf8)) as? [[String: Any]])?.isEmpty == false)
            #expect(try await cli.ok(["store", "find", #"{"mood": "none"}"#, "--json"] + store) == "[]")
            let text = #"{"$text": {"$search": "reading"}}"#
            let found = try await cli.ok(["store", "find", text] + store).split(separator: "\n").map { $0.prefix(2) }
            #expect(found == ["d1", "d3"])  // porter: "read" and "Reading" both stem to "read"
            try await cli.fails(["store", "find", #"{"$text": {"$search": "\"open"}}"#] + store, status: 4)
            try await cli.fails(["store", "index", "create", "--index-name", "moods", "day"] + store, status: 4)
            try await cli.fails(["store", "index", "delete", "--index-name", "nope"] + store, status: 7)

            // A large attachment with a forced progress bar; it comes back intact.
            let big = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try big.write(to: home.appending(path: "big.bin"))
            let attach = try await cli.run(
                ["store", "attach", "--id", "d1", "--attachment", "big", "--progress", "big.bin"] + store
            )
            #expect(
                attach.status == 0 && attach.output.contains("attaching") && attach.output.contains("100%"),
                "\(attach.output)"
            )
            let read = try await cli.run(
                ["store", "attachment", "--id", "d1", "--attachment", "big", "--output", "back.bin", "--progress"]
                    + store
            )
            #expect(read.status == 0 && read.output.contains("reading"), "\(read.output)")
            #expect(try Data(contentsOf: home.appending(path: "back.bin")) == big)

            let renewed = place + keychain + ["--password-file", "new.pass"]
            #expect(
                try await cli.ok(["store", "change-password", "--new-password-file", "new.pass"] + store)
                    == "password changed"
            )
            try await cli.fails(["store", "list"] + store, status: 3)  // the old password no longer unwraps the key
            #expect(try await cli.ok(["store", "check"] + renewed) == "ok 3 documents")
            #expect(
                try await cli.ok(["store", "index", "delete", "--index-name", "words"] + renewed) == "deleted words"
            )
            try await cli.fails(
                ["store", "change-password", "--new-password-file", "old.pass"] + Array(place) + [
                    "--key-file", "kc.pass",
                ],
                status: 64
            )

            let findings = try PlaintextScan.scan(
                home.appending(path: "stores"),
                // Quoted as JSON writes them: a 4-byte word turns up by chance in 3 MiB of ciphertext about once in
                // 1,400 runs (it did once); 6 bytes, once in 90 million.
                for: ["Walked by the river", "garden", #""calm""#, #""mood""#]
            )
            #expect(findings.isEmpty, "\(findings)")
        }
    }
}
