// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// The `strongroom` binary against the real server: the first session of README.md and docs/CLI.md, and an exit
/// code per failure.
@Suite struct CLISessionTests {
    /// The CLI built beside the tests, with profiles kept in `home`.
    struct CLI {
        let url: String
        let home: URL

        static var executable: URL {
            ServerProcess.executable.deletingLastPathComponent().appending(path: "strongroom")
        }

        /// Runs `strongroom <arguments>` and returns its exit status and output (stdout and stderr together).
        /// `environment` adds to the profile's variables; `input` is standard input.
        @discardableResult
        func run(
            _ arguments: [String],
            profile: String = "alice",
            environment: [String: String] = [:],
            input: String? = nil
        ) async throws -> ExternalProcess.Outcome {
            try await ExternalProcess.run(
                Self.executable,
                arguments: arguments,
                directory: home,
                environment: [
                    "STRONGROOM_HOME": home.appending(path: "profiles").path, "STRONGROOM_PROFILE": profile,
                    "TMPDIR": home.appending(path: "tmp").path,
                ].merging(environment) { _, added in added },
                input: input
            )
        }

        /// Runs a command that must succeed and returns its trimmed output.
        func ok(_ arguments: [String], profile: String = "alice") async throws -> String {
            let outcome = try await run(arguments, profile: profile)
            try #require(outcome.status == 0, "strongroom \(arguments.joined(separator: " ")): \(outcome.output)")
            return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Runs a command that must fail with `status`.
        func fails(_ arguments: [String], profile: String = "alice", status: Int32) async throws {
            let outcome = try await run(arguments, profile: profile)
            #expect(outcome.status == status, "strongroom \(arguments.joined(separator: " ")): \(outcome.output)")
            #expect(outcome.output.hasPrefix("error: "), "one clear line: \(outcome.output)")
        }
    }

    private func withCLI(_ body: (CLI) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let server = try await ServerProcess(
                arguments: ["--data-directory", directory.appending(path: "data").path, "--registration-token", "tok"]
            )
            defer { server.stop() }
            try FileManager.default.createDirectory(
                at: directory.appending(path: "tmp"),
                withIntermediateDirectories: true
            )
            try await body(CLI(url: server.baseURL, home: directory))
        }
    }

    @Test(
        "a profile without a post-quantum key (an official SDK's): keys post-quantum makes one, saves it and publishes it; again changes nothing"
    )
    func postQuantumKey() async throws {
        try await withCLI { cli in
            let alice = try await cli.ok(["register", "--token", "tok", "--url", cli.url])
            let file = cli.home.appending(path: "profiles/alice/e3db.json")
            var profile = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect(profile["private_hybrid_key"] is String, "register keeps the X-Wing seed in the profile")
            profile["private_hybrid_key"] = nil
            try JSONSerialization.data(withJSONObject: profile).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            let first = try await cli.ok(["keys", "post-quantum"])
            #expect(first.hasPrefix("post-quantum key ") && first.contains("published (key log leaf "), "\(first)")
            let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect(saved["private_hybrid_key"] is String && saved["client_id"] as? String == alice)
            #expect(try await cli.ok(["keys", "post-quantum"]) == first, "the same key, the same leaf")

            // --post-quantum require: the type keeps no X25519 wrap; bob, whose X-Wing key registration published,
            // reads it.
            let bob = try await cli.ok(["register", "--token", "tok", "--url", cli.url], profile: "bob")
            let id = try await cli.ok(["write", "--type", "pq", "--post-quantum", "require", "word=lattice"])
            _ = try await cli.ok(["share", "--type", "pq", "--reader", bob, "--post-quantum", "require"])
            #expect(try await cli.ok(["read", id], profile: "bob") == "word=lattice")
            let bogus = try await cli.run(["write", "--type", "pq", "--post-quantum", "maybe", "a=b"])
            #expect(bogus.status == 64, "\(bogus.output)")
        }
    }

    @Test("a type's post-quantum policy saved in the profile: require seals it X-Wing only; default removes it")
    func savedPostQuantumPolicy() async throws {
        try await withCLI { cli in
            _ = try await cli.ok(["register", "--token", "tok", "--url", cli.url])
            let bob = try await cli.ok(["register", "--token", "tok", "--url", cli.url], profile: "bob")
            #expect(
                try await cli.ok(["keys", "post-quantum", "--type", "vault", "--mode", "require"])
                    == "vault: require (saved in the profile)"
            )
            let file = cli.home.appending(path: "profiles/alice/e3db.json")
            let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect((saved["post_quantum"] as? [String: Any])?["types"] as? [String: String] == ["vault": "require"])
            // One type under the saved policy, one under the default; both shared with bob.
            let sealed = try await cli.ok(["write", "--type", "vault", "word=lattice"])
            let plain = try await cli.ok(["write", "--type", "notes", "word=classic"])
            for type in ["vault", "notes"] { _ = try await cli.ok(["share", "--type", type, "--reader", bob]) }
            #expect(try await cli.ok(["read", sealed], profile: "bob") == "word=lattice")
            // Bob's profile without his X-Wing key: the default type still opens (X25519), the saved one does not.
            let bobFile = cli.home.appending(path: "profiles/bob/e3db.json")
            var bobProfile = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: bobFile)) as? [String: Any]
            )
            bobProfile["private_hybrid_key"] = nil
            try JSONSerialization.data(withJSONObject: bobProfile).write(to: bobFile)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: bobFile.path)
            #expect(try await cli.ok(["read", plain], profile: "bob") == "word=classic")
            let refused = try await cli.run(["read", sealed], profile: "bob")
            #expect(refused.status == 5 && refused.output.contains("post-quantum"), "\(refused.output)")
            // Removed, the type is back to the default; a bad mode or a lone flag is a usage error.
            #expect(
                try await cli.ok(["keys", "post-quantum", "--type", "vault", "--mode", "default"])
                    == "vault: prefer (saved in the profile)"
            )
            let cleared = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            #expect(cleared["post_quantum"] == nil)
            #expect(try await cli.run(["keys", "post-quantum", "--type", "vault"]).status == 64)
            #expect(try await cli.run(["keys", "post-quantum", "--mode", "off"]).status == 64)
            #expect(try await cli.run(["keys", "post-quantum", "--type", "vault", "--mode", "maybe"]).status == 64)
            // A profile whose saved policy is not one: a clear error, not a crash.
            var broken = cleared
            broken["post_quantum"] = ["types": ["vault": "sometimes"]]
            try JSONSerialization.data(withJSONObject: broken).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            let invalid = try await cli.run(["whoami"])
            #expect(invalid.status != 0 && invalid.output.contains("off, prefer or require"), "\(invalid.output)")
        }
    }

    @Test("the README's first session: register, write, read, query, update, share, files, offline crypto, delete")
    func firstSession() async throws {
        try await withCLI { cli in
            let alice = try await cli.ok(["register", "--token", "tok", "--url", cli.url])
            let bob = try await cli.ok(["register", "--token", "tok", "--url", cli.url], profile: "bob")
            #expect(UUID(uuidString: alice) != nil && UUID(uuidString: bob) != nil)
            #expect(try await cli.ok(["whoami"]).contains(alice))

            let id = try await cli.ok([
                "write", "--type", "note", "title=hello", "body=first secret", "--plain", "tag=x",
            ])
            #expect(try await cli.ok(["read", id]) == "body=first secret\ntitle=hello")
            let table = try await cli.ok(["query", "--type", "note"])
            #expect(table.contains(id) && table.contains("title=hello"))
            let json = try await cli.ok(["query", "--json"])
            let records = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]
            #expect(records?.first?["record_id"] as? String == id)
            #expect(try await cli.ok(["query", "--user", alice]).contains(id))
            #expect(!(try await cli.ok(["query", "--user", bob]).contains(id)))

            #expect(try await cli.ok(["update", id, "body=changed"]).contains("kept title"))
            #expect(try await cli.ok(["read", id]) == "body=changed\ntitle=hello")  // the field not named stays

            try await cli.fails(["read", id], profile: "bob", status: 8)
            let missing = try await cli.run(["read", "00000000-0000-4000-8000-000000000000"])
            #expect(missing.status == 7, "\(missing.output)")
            #expect(missing.output.hasPrefix("error: no record 00000000-"), "in the user's words: \(missing.output)")
            // Every command naming something that is not there says what, in its words (exit 7).
            let nothing = "00000000-0000-4000-8000-000000000000"
            for (command, words) in [
                (["update", nothing, "a=b"], "error: no record \(nothing) for this client"),
                (["delete", nothing], "error: no record \(nothing) for this client"),
                (["share", "--type", "note", "--reader", nothing], "error: no client \(nothing) on this server"),
                (["revoke", "--type", "note", "--reader", nothing], "error: no client \(nothing) on this server"),
                (["file", "get", nothing, cli.home.appending(path: "nothing").path], "error: no file \(nothing)"),
            ] {
                let answer = try await cli.run(command)
                #expect(answer.status == 7 && answer.output.hasPrefix(words), "\(command): \(answer.output)")
            }
            _ = try await cli.ok(["share", "--type", "note", "--reader", bob])
            #expect(try await cli.ok(["read", id], profile: "bob").contains("body=changed"))
            let sharing = try await cli.ok(["sharing"])
            #expect(sharing.hasPrefix("DIRECTION") && sharing.contains(bob), "a table with a header: \(sharing)")
            // --json: one JSON value per invocation (issue 53 item 10).
            let shares = try JSONSerialization.jsonObject(with: Data(try await cli.ok(["sharing", "--json"]).utf8))
            #expect((shares as? [[String: Any]])?.first?["client_id"] as? String == bob)
            let profiles = try JSONSerialization.jsonObject(with: Data(try await cli.ok(["profiles", "--json"]).utf8))
            #expect((profiles as? [[String: Any]])?.compactMap { $0["client_id"] as? String }.contains(alice) == true)
            #expect(try await cli.ok(["profile", "list"]).contains(alice))
            // A revoke rotates the type's key and re-wraps the records (docs/design/Revocation.md).
            let revoked = try await cli.ok(["revoke", "--type", "note", "--reader", bob])
            #expect(
                revoked.contains("its key rotated to generation 2 (sealed to 1 reader, 1 record re-wrapped)"),
                "\(revoked)"
            )
            try await cli.fails(["read", id], profile: "bob", status: 8)

            _ = try await cli.ok(["authorizer", "add", "--authorizer", bob, "--type", "note"])
            #expect(try await cli.ok(["authorizer", "list"], profile: "bob").contains(alice))
            let authorizers = try await cli.ok(["authorizer", "list", "--json"], profile: "bob")
            #expect((try JSONSerialization.jsonObject(with: Data(authorizers.utf8)) as? [Any])?.count == 1)
            // Bob shares alice's notes with carol on her behalf; he may not share them with himself.
            let carol = try await cli.ok(["register", "--token", "tok", "--url", cli.url], profile: "carol")
            try await cli.fails(
                ["share", "--type", "note", "--reader", bob, "--on-behalf-of", alice],
                profile: "bob",
                status: 8
            )
            _ = try await cli.ok(
                ["share", "--type", "note", "--reader", carol, "--on-behalf-of", alice],
                profile: "bob"
            )
            #expect(try await cli.ok(["read", id], profile: "carol").contains("body=changed"))
            try await cli.fails(["read", id], profile: "bob", status: 8)
            // His revoke on her behalf rotates her key; she re-wraps her records herself.
            let unshared = try await cli.ok(
                ["revoke", "--type", "note", "--reader", carol, "--on-behalf-of", alice],
                profile: "bob"
            )
            #expect(unshared.contains("the writer's key rotated to generation 3 (sealed to 2 readers)"), "\(unshared)")
            #expect(unshared.contains("`strongroom keys finish-rotation --type note`"), "\(unshared)")
            try await cli.fails(["read", id], profile: "carol", status: 8)
            let finished = try await cli.ok(["keys", "finish-rotation", "--type", "note"])
            #expect(finished.contains("note is at key generation 3: 1 record re-wrapped"), "\(finished)")
            #expect(try await cli.ok(["read", id]).contains("body=changed"))
            _ = try await cli.ok(["authorizer", "remove", "--authorizer", bob])
            // Safety numbers: the same on both sides; another number marks nothing (exit 3), the same one verifies.
            let seen = try await cli.ok(["keys", "fingerprint", bob, "--digits"])
            #expect(seen.count == 60 && seen.allSatisfy(\.isNumber), "\(seen)")
            #expect(try await cli.ok(["keys", "fingerprint", alice, "--digits"], profile: "bob") == seen)
            #expect(try await cli.ok(["keys", "fingerprint", bob]).contains("not verified"))
            let wrong = String(repeating: "1", count: 60)
            try await cli.fails(["keys", "verify", bob, "--safety-number", wrong], status: 3)
            #expect(try await cli.ok(["keys", "verify", bob, "--safety-number", seen]).hasPrefix("verified"))
            #expect(try await cli.ok(["keys", "fingerprint", bob]).contains("verified: "))
            #expect(try await cli.ok(["keys", "fingerprint", "--digits"]).count == 30)

            let plain = cli.home.appending(path: "report.bin")
            try Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: plain)
            let file = try await cli.ok(["file", "put", "--type", "report", "report.bin", "--progress"])
            let fileID = try #require(file.split(separator: "\n").last.map(String.init))
            // One progress style (issue 53 item 11): each redraw clears its line and shows the total (and the rate
            // once 50 ms have passed: not checked, a fast machine finishes sooner).
            #expect(file.contains("\r\u{1B}[K") && file.contains("/3.0 MiB"), "\(file)")
            let got = try await cli.ok(["file", "get", fileID, "copy.bin", "--progress"])
            #expect(got.contains("\r\u{1B}[Kdownloading ") && got.contains(" MiB"), "\(got)")
            #expect(got.hasSuffix("wrote copy.bin: \(3 << 20) bytes (uploaded as report.bin)"), "\(got)")
            try FileManager.default.removeItem(at: cli.home.appending(path: "copy.bin"))
            _ = try await cli.ok(["file", "get", fileID, "copy.bin"])
            #expect(try Data(contentsOf: cli.home.appending(path: "copy.bin")) == Data(contentsOf: plain))
            // Downloading over an existing file fails after the download; no encrypted copy stays behind either way.
            let again = try await cli.run(["file", "get", fileID, "copy.bin"])
            #expect(again.status != 0)
            let temporary = try FileManager.default.contentsOfDirectory(atPath: cli.home.appending(path: "tmp").path)
            #expect(!temporary.contains { $0.hasPrefix(".strongroom-") }, "\(temporary)")

            try await cli.ok(["encrypt", "--type", "offline", "a=1", "b=two"]).write(
                to: cli.home.appending(path: "doc.json"),
                atomically: true,
                encoding: .utf8
            )
            let opened = try await cli.ok(["decrypt", "doc.json"])
            #expect(try JSONDecoder().decode([String: String].self, from: Data(opened.utf8)) == ["a": "1", "b": "two"])

            try #"{"order": 7, "items": ["tea", true, null]}"#.write(
                to: cli.home.appending(path: "order.json"),
                atomically: true,
                encoding: .utf8
            )
            try await cli.ok(["sign", "order.json"]).write(
                to: cli.home.appending(path: "signed.json"),
                atomically: true,
                encoding: .utf8
            )
            let key = try await cli.ok(["whoami", "--json"])
            let publicKey = try #require(
                (try JSONSerialization.jsonObject(with: Data(key.utf8)) as? [String: String])?["public_signing_key"]
            )
            // `=`: one key in 64 starts with '-', which would otherwise be read as an option (a flaky failure once).
            #expect(
                try await cli.ok(["verify", "signed.json", "--public-key=\(publicKey)"], profile: "bob") == "verified"
            )
            // Bob fetches alice's signing key from the server by her client ID instead of pasting it.
            #expect(try await cli.ok(["verify", "signed.json", "--signer", alice], profile: "bob") == "verified")
            try await cli.fails(["verify", "signed.json", "--signer", bob], profile: "bob", status: 3)

            _ = try await cli.ok(["delete", id])
            try await cli.fails(["read", id], status: 7)
        }
    }

    @Test("each failure has its exit code and one line on stderr; nothing changes")
    func exitCodes() async throws {
        try await withCLI { cli in
            try await cli.fails(["register", "--token", "wrong", "--url", cli.url], status: 8)
            try await cli.fails(["whoami"], status: 7)
            _ = try await cli.ok(["register", "--token", "tok", "--url", cli.url])
            // The profile exists already.
            try await cli.fails(["register", "--token", "tok", "--url", cli.url], status: 9)
            let id = try await cli.ok(["write", "--type", "t", "k=v"])
            try await cli.fails(
                ["update", id, "--record-version", UUID().uuidString.lowercased(), "k=lost"],
                status: 9
            )
            #expect(try await cli.ok(["read", id]) == "k=v")
            try await cli.fails(["read", UUID().uuidString], status: 7)
            try await cli.fails(["read", "not-a-uuid"], status: 64)
            try await cli.fails(["write", "--type", "t", "no-equals-sign"], status: 64)
            try await cli.fails(["write", "--type", "t", "--json", "[1,2]"], status: 64)

            let eak = try await cli.ok(["writer-key", "--type", "offline"])
            try eak.write(to: cli.home.appending(path: "eak.json"), atomically: true, encoding: .utf8)
            let document = try await cli.ok(["encrypt", "--type", "offline", "--eak", "eak.json", "a=1"])
            let tampered = document.replacingOccurrences(of: "\"offline\"", with: "\"other\"")
            try tampered.write(to: cli.home.appending(path: "bad.json"), atomically: true, encoding: .utf8)
            // Offline with the type's key: the signature no longer matches. Online: there is no key for "other".
            try await cli.fails(["decrypt", "bad.json", "--eak", "eak.json"], status: 3)
            try await cli.fails(["decrypt", "bad.json"], status: 7)
            try "not json".write(to: cli.home.appending(path: "junk.json"), atomically: true, encoding: .utf8)
            try await cli.fails(["decrypt", "junk.json"], status: 4)

            try #"{"a": 1.5}"#.write(to: cli.home.appending(path: "float.json"), atomically: true, encoding: .utf8)
            try await cli.fails(["sign", "float.json"], status: 4)
            try #"{"a": "b"}"#.write(to: cli.home.appending(path: "doc.json"), atomically: true, encoding: .utf8)
            let signed = try await cli.ok(["sign", "doc.json"]).replacingOccurrences(of: "\"b\"", with: "\"c\"")
            try signed.write(to: cli.home.appending(path: "forged.json"), atomically: true, encoding: .utf8)
            try await cli.fails(["verify", "forged.json"], status: 3)

            try await cli.fails(["read", id, "--timeout", "5", "--pin", "c2hvcnQ="], status: 64)
            try await cli.fails(["query", "--pin", "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI="], status: 5)
            let down = CLI(url: "http://127.0.0.1:9", home: cli.home)
            try await down.fails(["register", "--token", "t", "--url", down.url, "--profile", "x"], status: 10)
        }
    }
}
