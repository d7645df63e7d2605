// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

#if canImport(Glibc)
import Glibc
#endif

/// T.A.K's repackaging check: the running executable's SHA-256 against the app's Ed25519-signed
/// ``ExecutableManifest``, and whether group or others may write the executable.
public struct ExecutableCheck: IntegrityCheck {
    public init() {}
    public var name: String { "executable" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        let path = context.executable.resolvingSymlinksInPath().path
        var observations: [IntegrityObservation] = []
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o022 != 0 {
            observations.append(
                IntegrityObservation(
                    .executableWritable,
                    "group or others may write the executable",
                    evidence: ["\(path) mode \(String(info.st_mode & 0o7777, radix: 8))"]
                )
            )
        }
        guard let (signed, signer) = context.manifest else {
            observations.append(
                IntegrityObservation(.manifestMissing, "no signed manifest: the executable was not verified")
            )
            return observations
        }
        let manifest: ExecutableManifest
        do {
            manifest = try signed.verified(with: signer)
        } catch {
            observations.append(IntegrityObservation(.manifestInvalid, error.message))
            return observations
        }
        let name = URL(fileURLWithPath: path).lastPathComponent
        guard let expected = manifest.digests[name] else {
            observations.append(
                IntegrityObservation(
                    .executableUnlisted,
                    "the signed manifest does not list this executable",
                    evidence: ["executable: \(name)"]
                )
            )
            return observations
        }
        // An unreadable executable is reported as checkUnavailable below.
        guard let actual = try? ExecutableManifest.digest(of: URL(fileURLWithPath: path)) else {
            observations.append(
                IntegrityObservation(.checkUnavailable, "the executable could not be read", evidence: [path])
            )
            return observations
        }
        if !ConstantTime.equals(Array(actual.utf8), Array(expected.lowercased().utf8)) {
            observations.append(
                IntegrityObservation(
                    .executableModified,
                    "the executable differs from the signed manifest",
                    evidence: ["\(path)", "sha256 \(actual)", "manifest \(expected)"]
                )
            )
        }
        return observations
    }
}
