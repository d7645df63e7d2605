// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `{"curve25519": "…"}` (or `{"p384": "…"}` from the SDKs' NIST mode, stored and echoed only).
public struct PublicKeyObject: Codable, Sendable, Hashable {
    /// The X25519 public key, unpadded base64url.
    public var curve25519: String?
    /// A NIST P-384 key as the SDKs encode it (base64url of PEM); stored and echoed, never used.
    public var p384: String?

    /// Creates a key object.
    public init(curve25519: String? = nil, p384: String? = nil) {
        self.curve25519 = curve25519
        self.p384 = p384
    }
}

/// `{"ed25519": "…"}`.
public struct SigningKeyObject: Codable, Sendable, Hashable {
    /// The Ed25519 public key, unpadded base64url.
    public var ed25519: String?
    /// A NIST P-384 key (Java FIPS mode); stored and echoed only.
    public var p384: String?

    /// Creates a key object.
    public init(ed25519: String? = nil, p384: String? = nil) {
        self.ed25519 = ed25519
        self.p384 = p384
    }
}

/// The body every error response carries: `{"error": "…"}`.
public struct ErrorBody: Codable, Sendable, Hashable {
    /// What went wrong, for people.
    public var error: String
    /// A stable, machine-readable code.
    public var code: String?

    /// Creates an error body.
    public init(error: String, code: String? = nil) {
        self.error = error
        self.code = code
    }
}
