// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomWire

/// An app instance registered for integrity check-in: its Ed25519 key, bound to one client.
package struct StoredIntegrityInstance: Sendable, Hashable {
    /// The instance ID (a UUID's text).
    package var instanceID: String
    /// The client it belongs to.
    package var clientID: String
    /// Its Ed25519 public key, base64url.
    package var publicKey: String
    /// A name for people.
    package var name: String
    /// When it was registered (Unix seconds).
    package var registered: Int64

    /// Creates a row.
    package init(instanceID: String, clientID: String, publicKey: String, name: String, registered: Int64) {
        self.instanceID = instanceID
        self.clientID = clientID
        self.publicKey = publicKey
        self.name = name
        self.registered = registered
    }
}

/// A report an instance checked in.
package struct StoredIntegrityReport: Sendable, Hashable {
    /// The client.
    package var clientID: String
    /// The instance.
    package var instanceID: String
    /// The instance's name (read with the report; not stored with it).
    package var instanceName: String
    /// When the server received it (Unix seconds).
    package var received: Int64
    /// When the client ran the checks.
    package var checked: Int64
    /// The recorded verdict.
    package var verdict: IntegrityVerdict
    /// The findings, `kind:severity`, comma-separated.
    package var findings: String
    /// The report's JSON as signed.
    package var report: String
    /// Its place in the order of storage (0 before it is stored): pages of the history go by it.
    package var index: Int64

    /// Creates a row.
    package init(
        clientID: String,
        instanceID: String,
        instanceName: String = "",
        received: Int64,
        checked: Int64,
        verdict: IntegrityVerdict,
        findings: String,
        report: String,
        index: Int64 = 0
    ) {
        self.index = index
        self.clientID = clientID
        self.instanceID = instanceID
        self.instanceName = instanceName
        self.received = received
        self.checked = checked
        self.verdict = verdict
        self.findings = findings
        self.report = report
    }
}
