// Strongroom — SPDX-License-Identifier: Apache-2.0
// Integrity check-in: Strongroom's extension to the E3DB API (`/v1/integrity/…`, `/v1/admin/integrity`).

/// How much an integrity finding weighs (the `severity` of a finding in a report).
public enum IntegritySeverity: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Worth knowing; does not change the verdict.
    case informational
    /// Makes the verdict at least ``IntegrityVerdict/suspicious``.
    case suspicious
    /// Makes the verdict ``IntegrityVerdict/compromised``.
    case compromised

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .informational: 0
        case .suspicious: 1
        case .compromised: 2
        }
    }
}

/// The grade of an integrity report, never a bare boolean: the heaviest severity among its findings.
public enum IntegrityVerdict: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    /// Nothing suspicious or compromising was found (informational findings may be listed).
    case clean
    /// Something weakens the environment (root, a preload variable, an exposed file, clock skew): go on with care.
    case suspicious
    /// The process is being observed or altered (a tracer, hidden preload, instrumentation, a modified binary).
    case compromised

    public static func < (lhs: Self, rhs: Self) -> Bool { IntegritySeverity(lhs) < IntegritySeverity(rhs) }

    /// This verdict, raised to the heaviest of `severities` (a report cannot grade itself below its findings).
    public func raised(to severities: some Sequence<IntegritySeverity>) -> IntegrityVerdict {
        max(self, severities.map(IntegrityVerdict.init).max() ?? .clean)
    }

    /// The verdict a finding of `severity` forces at least.
    public init(_ severity: IntegritySeverity) {
        switch severity {
        case .informational: self = .clean
        case .suspicious: self = .suspicious
        case .compromised: self = .compromised
        }
    }
}

extension IntegritySeverity {
    /// The severity whose findings force `verdict`.
    init(_ verdict: IntegrityVerdict) {
        switch verdict {
        case .clean: self = .informational
        case .suspicious: self = .suspicious
        case .compromised: self = .compromised
        }
    }
}

/// `POST /v1/integrity/instances`: registers an app instance's Ed25519 key for the authenticated client.
public struct IntegrityInstanceRequest: Codable, Sendable, Hashable {
    /// The instance, a UUID the app made on first launch.
    public var instanceID: String
    /// Its Ed25519 public key, base64url: every report it sends is signed with the private half.
    public var publicKey: String
    /// A name for people (host name, device model), at most 256 bytes.
    public var name: String

    enum CodingKeys: String, CodingKey {
        case instanceID = "instance_id"
        case publicKey = "public_key"
        case name
    }

    /// Creates the body.
    public init(instanceID: String, publicKey: String, name: String) {
        self.instanceID = instanceID
        self.publicKey = publicKey
        self.name = name
    }
}

/// The answer to a registration (201 new, 200 already registered with the same key).
public struct IntegrityInstanceResponse: Codable, Sendable, Hashable {
    /// The instance.
    public var instanceID: String
    /// The client it is bound to.
    public var clientID: String
    /// When it was registered (Unix seconds).
    public var registeredAt: Int64

    enum CodingKeys: String, CodingKey {
        case instanceID = "instance_id"
        case clientID = "client_id"
        case registeredAt = "registered_at"
    }

    /// Creates the answer.
    public init(instanceID: String, clientID: String, registeredAt: Int64) {
        self.instanceID = instanceID
        self.clientID = clientID
        self.registeredAt = registeredAt
    }
}

/// `POST /v1/integrity/challenge`: a single-use nonce a report must sign, and the server's time (for the clock-skew
/// check).
public struct IntegrityChallengeResponse: Codable, Sendable, Hashable {
    /// 32 random bytes, base64url; valid once, until ``expiresAt``.
    public var nonce: String
    /// The server's time (Unix seconds).
    public var serverTime: Int64
    /// When the nonce stops being accepted.
    public var expiresAt: Int64

    enum CodingKeys: String, CodingKey {
        case nonce
        case serverTime = "server_time"
        case expiresAt = "expires_at"
    }

    /// Creates the answer.
    public init(nonce: String, serverTime: Int64, expiresAt: Int64) {
        self.nonce = nonce
        self.serverTime = serverTime
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/integrity/reports`: a report, signed by the instance over ``signedBytes(clientID:instanceID:nonce:report:)``.
public struct IntegrityCheckInRequest: Codable, Sendable, Hashable {
    /// The registered instance.
    public var instanceID: String
    /// The challenge's nonce.
    public var nonce: String
    /// The report's JSON (`IntegrityReport` in StrongroomShield), base64url.
    public var report: String
    /// The Ed25519 signature, base64url.
    public var signature: String

    enum CodingKeys: String, CodingKey {
        case instanceID = "instance_id"
        case nonce, report, signature
    }

    /// Creates the body.
    public init(instanceID: String, nonce: String, report: String, signature: String) {
        self.instanceID = instanceID
        self.nonce = nonce
        self.report = report
        self.signature = signature
    }

    /// What the instance signs: a domain tag and every field that binds the report to its client, instance and
    /// challenge, one per line, then the report's JSON bytes.
    public static func signedBytes(clientID: String, instanceID: String, nonce: String, report: [UInt8]) -> [UInt8] {
        Array("strongroom-integrity-report-v1\n\(clientID)\n\(instanceID)\n\(nonce)\n".utf8) + report
    }
}

/// The parts of a report the server reads (it keeps the whole JSON for people).
public struct IntegrityReportSummary: Codable, Sendable, Hashable {
    /// One finding, as the report states it.
    public struct Finding: Codable, Sendable, Hashable {
        /// Its name (`tracer-attached`).
        public var kind: String
        /// Its weight.
        public var severity: IntegritySeverity
        /// One sentence.
        public var summary: String

        /// Creates a finding.
        public init(kind: String, severity: IntegritySeverity, summary: String) {
            self.kind = kind
            self.severity = severity
            self.summary = summary
        }
    }

    /// The verdict the report states.
    public var verdict: IntegrityVerdict
    /// The findings.
    public var findings: [Finding]
    /// When the client ran the checks (Unix seconds).
    public var checkedAt: Int64

    enum CodingKeys: String, CodingKey {
        case verdict, findings
        case checkedAt = "checked_at"
    }

    /// Creates a summary.
    public init(verdict: IntegrityVerdict, findings: [Finding], checkedAt: Int64) {
        self.verdict = verdict
        self.findings = findings
        self.checkedAt = checkedAt
    }

    /// The stated verdict, never lower than the heaviest finding (a report cannot grade itself down).
    public var effectiveVerdict: IntegrityVerdict { verdict.raised(to: findings.map(\.severity)) }
}

/// The answer to a check-in.
public struct IntegrityCheckInResponse: Codable, Sendable, Hashable {
    /// The verdict the server recorded (the report's, raised to its heaviest finding).
    public var verdict: IntegrityVerdict
    /// When it was recorded (Unix seconds).
    public var receivedAt: Int64
    /// Whether the server's policy now refuses this client's other requests.
    public var refused: Bool

    enum CodingKeys: String, CodingKey {
        case verdict, refused
        case receivedAt = "received_at"
    }

    /// Creates the answer.
    public init(verdict: IntegrityVerdict, receivedAt: Int64, refused: Bool) {
        self.verdict = verdict
        self.receivedAt = receivedAt
        self.refused = refused
    }
}

/// One stored report, as the fraud-management interface (`GET /v1/admin/integrity`, `strongroom-server integrity`)
/// shows it.
public struct IntegrityHistoryEntry: Codable, Sendable, Hashable {
    /// The client.
    public var clientID: String
    /// The instance.
    public var instanceID: String
    /// The instance's name.
    public var instanceName: String
    /// The recorded verdict.
    public var verdict: IntegrityVerdict
    /// When the server received it.
    public var receivedAt: Int64
    /// When the client ran the checks.
    public var checkedAt: Int64
    /// The findings' names and severities (`tracer-attached:compromised`).
    public var findings: [String]
    /// The whole report's JSON, as signed.
    public var report: String
    /// Its place in the server's order of storage: `?before=` this index asks for the next, older page.
    public var index: Int64?

    enum CodingKeys: String, CodingKey {
        case clientID = "client_id"
        case instanceID = "instance_id"
        case instanceName = "instance_name"
        case verdict
        case receivedAt = "received_at"
        case checkedAt = "checked_at"
        case findings, report, index
    }

    /// Creates an entry.
    public init(
        clientID: String,
        instanceID: String,
        instanceName: String,
        verdict: IntegrityVerdict,
        receivedAt: Int64,
        checkedAt: Int64,
        findings: [String],
        report: String,
        index: Int64? = nil
    ) {
        self.index = index
        self.clientID = clientID
        self.instanceID = instanceID
        self.instanceName = instanceName
        self.verdict = verdict
        self.receivedAt = receivedAt
        self.checkedAt = checkedAt
        self.findings = findings
        self.report = report
    }
}
