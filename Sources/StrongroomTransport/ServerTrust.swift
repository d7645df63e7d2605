// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
public import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// Which TLS servers a client talks to.
///
/// By default the system's roots decide. With custom roots only those anchors are accepted; with pins a key of
/// the verified chain — the leaf, an intermediate or the CA (SPKI SHA-256, as in HPKP and OkHttp) — must also be
/// pinned. Everything is checked during the handshake, before a client certificate is shown and before a byte of
/// the request is sent. Pin the current key and at least one backup key you keep offline, so that a key rotation
/// does not lock clients out; pin per host with ``hostPins``.
public struct ServerTrust: Sendable, Hashable {
    /// The anchors chains must lead to.
    public enum Roots: Sendable, Hashable {
        /// The operating system's trust store.
        case system
        /// Exactly these certificates (a private CA, or a self-signed server certificate).
        case certificates([Certificate])
    }

    /// The anchors chains must lead to.
    public var roots: Roots
    /// Keys accepted for every host (a key anywhere in the verified chain must be one); empty means no pinning.
    public var pins: Set<PublicKeyPin>
    /// Keys accepted per host name (compared without case). When not empty, a host without an entry is refused,
    /// whatever ``pins`` says.
    public var hostPins: [String: Set<PublicKeyPin>]

    /// Chain validation against `roots`, then, when pins apply to the host, a key of the chain must be pinned.
    public init(roots: Roots = .system, pins: Set<PublicKeyPin> = [], hostPins: [String: Set<PublicKeyPin>] = [:]) {
        self.roots = roots
        self.pins = pins
        self.hostPins = hostPins
    }

    /// The pins for `host`: the sets of its entries when ``hostPins`` is used (nil when it has none), else ``pins``.
    func pins(for host: String) -> Set<PublicKeyPin>? {
        guard !hostPins.isEmpty else { return pins }
        let entries = hostPins.filter { $0.key.caseInsensitiveCompare(host) == .orderedSame }.values
        return entries.isEmpty ? nil : entries.reduce(into: []) { $0.formUnion($1) }
    }

    /// Roots from a PEM bundle (one or more `CERTIFICATE` blocks), such as a private CA's chain file.
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` when the text holds no certificate or one does not
    ///   parse.
    public static func roots(pemBundle pem: String) throws(TransportError) -> Roots {
        let certificates: [Certificate]
        do {
            certificates = try PEMDocument.parseMultiple(pemString: pem).map { try Certificate(pemDocument: $0) }
        } catch {
            throw TransportError(.invalidConfiguration, "the PEM bundle does not parse", underlying: error)
        }
        guard !certificates.isEmpty else {
            throw TransportError(.invalidConfiguration, "the PEM bundle holds no certificate")
        }
        return .certificates(certificates)
    }

    /// The system's trust store, no pinning: what an unconfigured client does.
    public static let system = ServerTrust()

    /// Whether this differs from the default, which needs the pinning transport.
    var isCustom: Bool { self != .system }
}

/// The SHA-256 of a DER `SubjectPublicKeyInfo`, the value HPKP, OkHttp and `openssl … | openssl dgst -sha256`
/// pipelines print in base64.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let sha256: [UInt8]

    /// A pin from its standard base64 text (`vxK9Vw0I…FnpI=`), or nil if it is not 32 bytes of base64.
    public init?(base64 text: String) {
        let trimmed = text.hasPrefix("sha256/") ? String(text.dropFirst(7)) : text
        guard let bytes = Data(base64Encoded: trimmed), bytes.count == 32 else { return nil }
        self.sha256 = Array(bytes)
    }

    /// The pin of a DER `SubjectPublicKeyInfo`.
    public init(subjectPublicKeyInfo der: some DataProtocol) {
        self.sha256 = Array(SHA256.hash(data: Data(der)))
    }

    /// The pin of a certificate's public key.
    public init(certificate: Certificate) throws {
        self.init(subjectPublicKeyInfo: try certificate.publicKey.serializeAsPEM().derBytes)
    }

    /// Whether `der` (a `SubjectPublicKeyInfo`) has this pin, compared in constant time.
    func matches(subjectPublicKeyInfo der: [UInt8]) -> Bool {
        ConstantTime.equals(Array(SHA256.hash(data: der)), sha256)
    }

    /// The base64 text of the digest (a pin is public).
    public var description: String { Data(sha256).base64EncodedString() }
}
