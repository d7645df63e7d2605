// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCrypto

/// What the checks need to know about the app: its secret files, its executable manifest, the server's time.
public struct IntegrityContext: Sendable {
    /// Files that must be owner-only (keychain, datastore, profiles); missing ones are skipped.
    public var protectedFiles: [URL]
    /// The signed manifest of the app's executables and the key that must have signed it; nil skips the
    /// executable check (reported as ``IntegrityFinding/Kind/manifestMissing``).
    public var manifest: (manifest: SignedExecutableManifest, signer: SigningPublicKey)?
    /// The executable to verify (default: this process's, `/proc/self/exe`).
    public var executable: URL
    /// The server's time, when known (the check-in challenge carries it), and the local time it was compared at.
    public var serverTime: Date?
    /// The local clock (tests set it).
    public var localTime: Date
    /// How far the local clock may be from the server's.
    public var allowedClockSkew: Duration
    /// Whether the process holds secrets (keys unlocked): core dumps matter then.
    public var secretsLoaded: Bool
    /// The environment as `getenv` sees it now.
    public var environment: [String: String]

    /// A context for this process.
    public init(
        protectedFiles: [URL] = [],
        manifest: (manifest: SignedExecutableManifest, signer: SigningPublicKey)? = nil,
        executable: URL = URL(fileURLWithPath: "/proc/self/exe"),
        serverTime: Date? = nil,
        localTime: Date = Date(),
        allowedClockSkew: Duration = .seconds(120),
        secretsLoaded: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.protectedFiles = protectedFiles
        self.manifest = manifest
        self.executable = executable
        self.serverTime = serverTime
        self.localTime = localTime
        self.allowedClockSkew = allowedClockSkew
        self.secretsLoaded = secretsLoaded
        self.environment = environment
    }
}
