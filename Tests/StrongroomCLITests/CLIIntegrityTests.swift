// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// `strongroom integrity` under real tracers, real preloads, a modified executable and an exposed keychain file:
/// each yields its named finding and grade, and the clean run is clean. When the tests run as root (CI), the CLI
/// runs as `nobody` through `setpriv`, so root itself is not the finding.
@Suite(.timeLimit(.minutes(10)))
struct CLIIntegrityTests {
    struct Verdict {
        let status: Int32
        let verdict: String
        let kinds: Set<String>
        let output: String
    }

    /// A folder nobody can read, for the unprivileged runs.
    private func withSharedFolder(_ body: (URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            try await body(folder)
        }
    }

    /// `prefix + [env VARIABLES] strongroom integrity --json extra`, unprivileged when the tests run as root.
    private func integrity(
        _ extra: [String] = [],
        prefix: [String] = [],
        environment: [String: String] = [:],
        executable: URL = CLISessionTests.CLI.executable
    ) async throws -> Verdict {
        var command = prefix
        if !environment.isEmpty { command += ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" }.sorted() }
        command += [executable.path, "integrity", "--json"] + extra
        if geteuid() == 0 {
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        let outcome = try await ExternalProcess.run(
            URL(fileURLWithPath: command[0]),
            arguments: Array(command.dropFirst()),
            directory: URL(fileURLWithPath: "/")
        )
        let line = try #require(
            outcome.output.split(separator: "\n").first { $0.hasPrefix("{") },
            "no report: \(outcome.output)"
        )
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let findings = report["findings"] as? [[String: Any]] ?? []
        return Verdict(
            status: outcome.status,
            verdict: report["verdict"] as? String ?? "",
            kinds: Set(findings.compactMap { $0["kind"] as? String }),
            output: outcome.output
        )
    }

    @Test("a clean run is clean (exit 0); informational hints do not change the verdict")
    func clean() async throws {
        let result = try await integrity()
        #expect(result.verdict == "clean" && result.status == 0, "\(result.output)")
        #expect(result.kinds.isDisjoint(with: ["tracer-attached", "preload-variable", "running-as-root"]))
    }

    @Test("under strace -f: tracer-attached and debugger-parent, compromised (exit 21)")
    func underStrace() async throws {
        let strace = "/usr/bin/strace"
        try #require(
            FileManager.default.isExecutableFile(atPath: strace),
            "install strace (Scripts/install-system-deps.sh)"
        )
        let result = try await integrity(prefix: [strace, "-f", "-o", "/dev/null"])
        #expect(result.verdict == "compromised" && result.status == 21, "\(result.output)")
        #expect(result.kinds.isSuperset(of: ["tracer-attached", "debugger-parent"]))
    }

    @Test("under a PTRACE_TRACEME parent: tracer-attached, compromised")
    func underTracemeParent() async throws {
        let python = try #require(PythonSDK.interpreter, "\(PythonSDK.missingMessage)")
        let result = try await integrity(prefix: [python.path, PythonSDK.path("Scripts/testing/traceme.py")])
        #expect(result.verdict == "compromised" && result.status == 21, "\(result.output)")
        #expect(result.kinds.contains("tracer-attached"))
    }

    @Test("LD_PRELOAD of a harmless system library: preload-variable, suspicious (exit 20)")
    func visiblePreload() async throws {
        let result = try await integrity(environment: ["LD_PRELOAD": "libz.so.1"])
        #expect(result.verdict == "suspicious" && result.status == 20, "\(result.output)")
        #expect(result.kinds.contains("preload-variable") && !result.kinds.contains("preload-hidden"))
    }

    @Test("a preloaded library that unsets LD_PRELOAD in its constructor: preload-hidden, compromised")
    func hiddenPreload() async throws {
        try await withSharedFolder { folder in
            let source = folder.appending(path: "hide.c")
            try Data(
                #"""
                #include <stdlib.h>
                __attribute__((constructor)) static void hide(void) { unsetenv("LD_PRELOAD"); }
                """#.utf8
            ).write(to: source)
            let library = folder.appending(path: "libhide.so")
            let compiler = try #require(
                ["/usr/bin/cc", "/usr/bin/clang", "/opt/swift/usr/bin/clang"].first {
                    FileManager.default.isExecutableFile(atPath: $0)
                },
                "a C compiler (the Swift toolchain's clang)"
            )
            let built = try await ExternalProcess.run(
                URL(fileURLWithPath: compiler),
                arguments: ["-shared", "-fPIC", "-o", library.path, source.path]
            )
            try #require(built.status == 0, "\(built.output)")
            let result = try await integrity(environment: ["LD_PRELOAD": library.path])
            #expect(result.verdict == "compromised" && result.status == 21, "\(result.output)")
            #expect(result.kinds.contains("preload-hidden") && !result.kinds.contains("preload-variable"))
        }
    }

    @Test("a signed manifest: the built executable verifies; a modified copy is executable-modified, compromised")
    func modifiedExecutable() async throws {
        try await withSharedFolder { folder in
            let cli = CLISessionTests.CLI.executable
            let keyFile = folder.appending(path: "manifest.key")
            let manifest = folder.appending(path: "manifest.json")
            let keyed = try await ExternalProcess.run(
                cli,
                arguments: ["integrity", "manifest-key", "--output", keyFile.path]
            )
            try #require(keyed.status == 0, "\(keyed.output)")
            let publicKey = keyed.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let signed = try await ExternalProcess.run(
                cli,
                arguments: [
                    "integrity", "manifest", "--signing-key", keyFile.path, "--output", manifest.path, cli.path,
                ]
            )
            try #require(signed.status == 0, "\(signed.output)")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: manifest.path)
            // `=`: a base64url key may start with "-", which would read as an option.
            let verify = ["--manifest", manifest.path, "--manifest-key=\(publicKey)"]

            let original = try await integrity(verify)
            #expect(original.verdict == "clean", "\(original.output)")
            #expect(original.kinds.isDisjoint(with: ["executable-modified", "manifest-missing", "manifest-invalid"]))

            let copy = folder.appending(path: "copy/strongroom")  // the same name: the manifest lists it
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(),
                withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o755]
            )
            try FileManager.default.copyItem(at: cli, to: copy)
            let handle = try FileHandle(forWritingTo: copy)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([0x00]))  // a patched binary that still runs
            try handle.close()
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
            let modified = try await integrity(verify, executable: copy)
            #expect(modified.verdict == "compromised" && modified.status == 21, "\(modified.output)")
            #expect(modified.kinds.contains("executable-modified"))

            // Another signer's key: the manifest itself is refused.
            let otherKey = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
            let forged = try await integrity(["--manifest", manifest.path, "--manifest-key=\(otherKey)"])
            #expect(forged.verdict == "compromised" && forged.kinds.contains("manifest-invalid"), "\(forged.output)")
        }
    }

    @Test("a group-readable keychain file: file-exposed, suspicious; an owner-only one is fine")
    func exposedKeychainFile() async throws {
        try await withSharedFolder { folder in
            let keychain = folder.appending(path: "keychain")
            try Data("not really a keychain".utf8).write(to: keychain)
            try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: keychain.path)
            let result = try await integrity(["--keychain-file", keychain.path])
            #expect(result.verdict == "suspicious" && result.status == 20, "\(result.output)")
            #expect(result.kinds.contains("file-exposed"))
        }
        // A file the (unprivileged) runner owns, mode 0600, in a folder only it may write.
        let own = try await integrity(["--keychain-file", "/nonexistent/keychain"])
        #expect(!own.kinds.contains("file-exposed"), "\(own.output)")
    }
}
