// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomTesting
import Testing

/// What an app that depends on the package gets from SwiftPM: no "prohibited flag(s)" warning on every build. SwiftPM
/// takes only search paths, libraries and defines from a system library's pkg-config flags in a dependency; GLib's
/// carry `-pthread`, so libsecret is declared by hand (CLibSecret) and checked against its headers here.
@Suite struct ConsumerBuildFlagsTests {
    static let root = PythonSDK.repositoryRoot

    @Test("every pkg-config flag the package's system libraries bring is one SwiftPM allows in a dependency")
    func pkgConfigFlags() async throws {
        let manifest = try String(contentsOf: Self.root.appending(path: "Package.swift"), encoding: .utf8)
        let names = manifest.matches(of: /pkgConfig: "([^"]+)"/).map { String($0.output.1) }
        #expect(Set(names) == ["libsodium", "sqlcipher"], "a new pkg-config library: check its flags here")
        for name in names {
            let outcome = try await ExternalProcess.run(
                URL(filePath: "/usr/bin/env"),
                arguments: ["pkg-config", "--cflags", "--libs", name]
            )
            #expect(outcome.status == 0, "\(name): \(outcome.output)")
            for flag in outcome.output.split(whereSeparator: \.isWhitespace) {
                #expect(["-I", "-L", "-l", "-D"].contains(String(flag.prefix(2))), "\(name) brings \(flag)")
            }
        }
    }

    @Test("CLibSecret's hand-written libsecret and GLib declarations compile against the real headers")
    func libsecretDeclarations() async throws {
        let outcome = try await ExternalProcess.run(
            URL(filePath: "/usr/bin/env"),
            arguments: ["bash", Self.root.appending(path: "Scripts/check-libsecret-declarations.sh").path]
        )
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("declarations match"), "\(outcome.output)")
    }
}
