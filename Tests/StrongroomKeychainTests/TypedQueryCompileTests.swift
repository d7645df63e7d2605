// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// Typed queries reject wrong attributes at compile time: snippets are type-checked with `swiftc` against the
/// StrongroomKeychain module of this build; the right ones compile, each wrong one fails with the expected error.
@Suite struct TypedQueryCompileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `<build folder>/Modules`, beside the test bundle.
    static var modules: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appending(path: "Modules")
    }

    /// Every C module map the keychain's dependencies bring in (SwiftPM's generated ones beside the build, the
    /// packages' own under `include/`), which `swiftc` must see to load the modules.
    static var moduleMaps: [String] {
        let fileManager = FileManager.default
        var maps = [root.appending(path: "Sources/CSodium/module.modulemap").path]
        let build = modules.deletingLastPathComponent()
        for entry in (try? fileManager.contentsOfDirectory(atPath: build.path)) ?? [] where entry.hasSuffix(".build") {
            let map = build.appending(path: "\(entry)/module.modulemap")
            if fileManager.fileExists(atPath: map.path) { maps.append(map.path) }
        }
        let checkouts = root.appending(path: ".build/checkouts")
        let found = fileManager.enumerator(at: checkouts, includingPropertiesForKeys: nil)
        while let url = found?.nextObject() as? URL {
            if url.lastPathComponent == "module.modulemap",
                url.deletingLastPathComponent().lastPathComponent == "include"
            {
                maps.append(url.path)
            }
        }
        return maps
    }

    private func typecheck(_ source: String) async throws -> ExternalProcess.Outcome {
        try await withTemporaryDirectory { directory in
            let file = directory.appending(path: "snippet.swift")
            try ("import StrongroomKeychain\nimport Crypto\n" + source).write(
                to: file,
                atomically: true,
                encoding: .utf8
            )
            return try await ExternalProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments: ["swiftc", "-typecheck", "-I", Self.modules.path]
                    + Self.moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + [file.path]
            )
        }
    }

    @Test("attributes exist on their own class and compile")
    func rightAttributes() async throws {
        let outcome = try await typecheck(
            """
            func use(_ keychain: Keychain) throws {
                var password = ItemQuery<GenericPassword>.credential(for: "a", service: "s")
                password.service = "other"
                var web = ItemQuery<InternetPassword>.credential(for: "a", space: WebProtectionSpace(host: "h"))
                web.port = 443
                var key = ItemQuery<SecKey>.key(for: "tag")
                key.applicationTag = "t"
                try keychain.store(Curve25519.Signing.PrivateKey(), query: key)
                let _: String? = try keychain.retrieve(password)
            }
            """
        )
        #expect(outcome.status == 0, "\(outcome.output)")
    }

    @Test(
        "a wrong attribute or a value of the wrong kind does not compile",
        arguments: [
            ("var q = ItemQuery<SecKey>.key(for: \"k\"); q.service = \"x\"", "'SecKey' and 'GenericPassword'"),
            (
                "var q = ItemQuery<GenericPassword>.credential(for: \"a\"); q.port = 1",
                "'GenericPassword' and 'InternetPassword'"
            ),
            (
                "var q = ItemQuery<SecCertificate>.certificate(for: \"c\"); q.applicationTag = \"t\"",
                "'SecCertificate' and 'SecKey'"
            ),
            ("func f(k: Keychain) throws { try k.store(\"password\", query: .key(for: \"k\")) }", "error:"),
            (
                "func f(k: Keychain) throws { try k.store(P256.Signing.PrivateKey(), query: .credential(for: \"a\")) }",
                "error:"
            ),
        ]
    )
    func wrongAttributes(source: String, expected: String) async throws {
        let outcome = try await typecheck(source)
        #expect(outcome.status != 0)
        #expect(outcome.output.contains(expected), "\(outcome.output)")
    }
}
