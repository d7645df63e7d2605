// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
public import StrongroomCore
import SwiftASN1
public import X509

extension Certificate.PrivateKey {
    /// The key as PKCS#8 DER in a buffer wiped when released: the one form Strongroom stores private keys in.
    ///
    /// - Throws: ``PKIError/Code/unsupported`` for a key that cannot be serialised.
    public func pkcs8() throws(PKIError) -> SecureBytes {
        do {
            var der = try serializeAsPEM().derBytes
            defer { Wipe.bytes(&der) }
            // Only RSA keys come out of swift-certificates as PKCS#1; everything else is PKCS#8 already.
            if case .rsa = try KeyAlgorithm(of: publicKey) {
                var wrapped = try Self.wrapRSA(der)
                defer { Wipe.bytes(&wrapped) }
                return SecureBytes(copying: wrapped)
            }
            return SecureBytes(copying: der)
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError(.unsupported, "the private key cannot be serialised", underlying: error)
        }
    }

    /// The key as PEM (PKCS#8; PKCS#1 for RSA), for a file another program reads, such as a TLS server's key.
    ///
    /// - Throws: ``PKIError/Code/unsupported`` for a key that cannot be serialised.
    public func pemString() throws(PKIError) -> String {
        do {
            return try serializeAsPEM().pemString
        } catch {
            throw PKIError(.unsupported, "the private key cannot be serialised", underlying: error)
        }
    }

    /// A key from PKCS#8, SEC1 or PKCS#1 DER (what PKCS#12 files and OpenSSL hold), or from PEM text of any of them.
    ///
    /// - Throws: ``PKIError/Code/invalidEncoding`` when the bytes are none of these.
    public init(encoded bytes: SecureBytes) throws(PKIError) {
        var raw = bytes.withUnsafeBytes { Array($0) }
        defer { Wipe.bytes(&raw) }
        // Trying each encoding in turn; the last failure is the one reported.
        if let key = try? Certificate.PrivateKey(derBytes: raw) {
            self = key
            return
        }
        for discriminator in ["EC PRIVATE KEY", "RSA PRIVATE KEY"] {
            if let key = try? Certificate.PrivateKey(pemDocument: PEMDocument(type: discriminator, derBytes: raw)) {
                self = key
                return
            }
        }
        if let text = String(bytes: raw, encoding: .utf8), let key = try? Certificate.PrivateKey(pemEncoded: text) {
            self = key
            return
        }
        throw PKIError(.invalidEncoding, "the bytes are not a PKCS#8, SEC1 or PKCS#1 private key")
    }

    /// PKCS#1 `RSAPrivateKey` wrapped as PKCS#8 `PrivateKeyInfo` (version 0, rsaEncryption with NULL parameters).
    private static func wrapRSA(_ pkcs1: [UInt8]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { inner in
            try inner.serialize(0)
            try inner.appendConstructedNode(identifier: .sequence) { algorithm in
                try algorithm.serialize(ASN1ObjectIdentifier("1.2.840.113549.1.1.1"))
                try algorithm.serialize(ASN1Null())
            }
            try inner.serialize(ASN1OctetString(contentBytes: pkcs1[...]))
        }
        return serializer.serializedBytes
    }
}

extension Certificate.PublicKey {
    /// The DER `SubjectPublicKeyInfo`.
    public var subjectPublicKeyInfo: [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(self)  // a parsed or generated key always serialises
        return serializer.serializedBytes
    }

    /// SHA-256 of the `SubjectPublicKeyInfo`: the key's pin, as HPKP and OkHttp define it.
    public var spkiSHA256: [UInt8] { Array(SHA256.hash(data: subjectPublicKeyInfo)) }

    /// The pin as base64 text (`sha256/` is not prefixed).
    public var pin: String { Data(spkiSHA256).base64EncodedString() }

    /// The PEM encoding (`-----BEGIN PUBLIC KEY-----`).
    public func pemString() throws(PKIError) -> String { try encodedPEM(naming: "public key") }
}

/// Something that signs with a private key it keeps to itself: a key pair in the keychain, or a key in memory.
/// CSRs and certificates are signed through it, so no caller ever needs the key's bytes.
public protocol CertificateSigner: Sendable {
    /// The public half.
    var publicKey: Certificate.PublicKey { get }
    /// Signs `bytes` with `algorithm`.
    func sign(_ bytes: [UInt8], algorithm: Certificate.SignatureAlgorithm) throws(PKIError) -> Certificate.Signature
}

/// A private key held in memory, as a ``CertificateSigner`` (for a CA key loaded by its owner, or tests).
public struct InMemorySigner: CertificateSigner {
    private let key: Certificate.PrivateKey

    /// Wraps `key`.
    public init(_ key: Certificate.PrivateKey) { self.key = key }

    public var publicKey: Certificate.PublicKey { key.publicKey }

    public func sign(
        _ bytes: [UInt8],
        algorithm: Certificate.SignatureAlgorithm
    ) throws(PKIError) -> Certificate.Signature {
        do {
            return try key.sign(bytes: bytes, signatureAlgorithm: algorithm)
        } catch {
            throw PKIError(.unsupported, "the key cannot sign with \(algorithm)", underlying: error)
        }
    }
}

/// Adapts a ``CertificateSigner`` to swift-certificates' `CustomPrivateKey`, so its builders sign through it.
struct SignerKey: CustomPrivateKey {
    let signer: any CertificateSigner
    let id = UUID()

    var publicKey: Certificate.PublicKey { signer.publicKey }
    var defaultSignatureAlgorithm: Certificate.SignatureAlgorithm {
        // A signer's key is one KeyAlgorithm makes; any other fails when it signs.
        (try? KeyAlgorithm(of: signer.publicKey).signatureAlgorithm) ?? .ecdsaWithSHA256
    }

    func signSynchronously(
        bytes: some DataProtocol,
        signatureAlgorithm: Certificate.SignatureAlgorithm
    ) throws -> Certificate.Signature {
        try signer.sign(Array(bytes), algorithm: signatureAlgorithm)
    }

    func signAsynchronously(
        bytes: some DataProtocol & Sendable,
        signatureAlgorithm: Certificate.SignatureAlgorithm
    ) async throws -> Certificate.Signature {
        try signer.sign(Array(bytes), algorithm: signatureAlgorithm)
    }

    var supportedSignatureAlgorithms: [Certificate.SignatureAlgorithm] { [defaultSignatureAlgorithm] }

    static var defaultPEMDiscriminator: String { "PRIVATE KEY" }

    func serialize(into coder: inout DER.Serializer) throws {
        throw PKIError(.unsupported, "a signer's private key is never serialised")
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
