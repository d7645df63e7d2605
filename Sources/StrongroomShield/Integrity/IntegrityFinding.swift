// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomWire

/// One thing an integrity check found: what it is, how much it weighs under the grading policy, and the evidence.
public struct IntegrityFinding: Sendable, Hashable, Codable {
    /// A finding's name, stable across releases (`tracer-attached`, `preload-hidden`, …): what policies, servers
    /// and scripts match on.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CodingKeyRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        public var codingKey: any CodingKey { rawValue.codingKey }
        public init?(codingKey: some CodingKey) { self.init(rawValue: codingKey.stringValue) }

        /// A process is tracing this one (`TracerPid` in `/proc/self/status`): strace, gdb, a `PTRACE_TRACEME`
        /// parent.
        public static let tracerAttached = Kind(rawValue: "tracer-attached")
        /// The parent process is a debugger or tracer (gdb, lldb, strace, ltrace, valgrind, rr, frida…).
        public static let debuggerParent = Kind(rawValue: "debugger-parent")
        /// `LD_PRELOAD` or `LD_AUDIT` is set.
        public static let preloadVariable = Kind(rawValue: "preload-variable")
        /// `LD_PRELOAD` or `LD_AUDIT` was set when the process started but is gone from its environment: a loaded
        /// library hid itself.
        public static let preloadHidden = Kind(rawValue: "preload-hidden")
        /// `/etc/ld.so.preload` names libraries loaded into every process.
        public static let preloadFile = Kind(rawValue: "preload-file")
        /// Instrumentation (Frida's agent or gadget, Substrate…) is mapped into memory or runs a thread here.
        public static let instrumentation = Kind(rawValue: "instrumentation")
        /// The executable's SHA-256 differs from the signed manifest's (a repackaged or patched binary).
        public static let executableModified = Kind(rawValue: "executable-modified")
        /// The signed manifest does not list this executable.
        public static let executableUnlisted = Kind(rawValue: "executable-unlisted")
        /// The manifest's signature does not verify with the app's key.
        public static let manifestInvalid = Kind(rawValue: "manifest-invalid")
        /// No manifest was given, so the executable was not verified.
        public static let manifestMissing = Kind(rawValue: "manifest-missing")
        /// Group or others may write the executable.
        public static let executableWritable = Kind(rawValue: "executable-writable")
        /// The process runs as root (effective user ID 0).
        public static let runningAsRoot = Kind(rawValue: "running-as-root")
        /// A non-root process holds effective capabilities (`CapEff`).
        public static let effectiveCapabilities = Kind(rawValue: "effective-capabilities")
        /// The process may dump core (a non-zero `RLIMIT_CORE` and the dumpable flag) while it holds secrets.
        public static let coreDumps = Kind(rawValue: "core-dumps")
        /// A keychain, datastore or profile file is readable or writable by others, not owned by this user, a
        /// symbolic link, or in a folder others may write.
        public static let fileExposed = Kind(rawValue: "file-exposed")
        /// The process runs in a container or virtual machine (a hint, not a verdict).
        public static let virtualization = Kind(rawValue: "virtualization")
        /// The local clock differs from the server's by more than the allowed skew.
        public static let clockSkew = Kind(rawValue: "clock-skew")
        /// A file the check needs could not be read (a hardened or unusual system).
        public static let checkUnavailable = Kind(rawValue: "check-unavailable")
    }

    /// How much a finding weighs (shared with the server, which reads reports): the report's verdict is the
    /// heaviest severity found.
    public typealias Severity = IntegritySeverity

    /// What was found.
    public var kind: Kind
    /// Its weight under the policy the report was graded with.
    public var severity: Severity
    /// One sentence for a person.
    public var summary: String
    /// What was seen (values, paths, process names), each line bounded; never secrets.
    public var evidence: [String]

    /// Creates a finding.
    public init(kind: Kind, severity: Severity, summary: String, evidence: [String] = []) {
        self.kind = kind
        self.severity = severity
        self.summary = summary
        self.evidence = evidence
    }
}

/// What a check observed, before the policy weighs it.
public struct IntegrityObservation: Sendable, Hashable {
    /// What was found.
    public var kind: IntegrityFinding.Kind
    /// One sentence for a person.
    public var summary: String
    /// What was seen.
    public var evidence: [String]

    /// Creates an observation; evidence lines are cut at 512 bytes and at most 16 are kept.
    public init(_ kind: IntegrityFinding.Kind, _ summary: String, evidence: [String] = []) {
        self.kind = kind
        self.summary = summary
        self.evidence = evidence.prefix(16).map { line in
            line.utf8.count <= 512 ? line : String(decoding: line.utf8.prefix(509), as: UTF8.self) + "…"
        }
    }
}
