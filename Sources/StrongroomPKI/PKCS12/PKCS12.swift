// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOSSL
import StrongroomCore
import SwiftASN1
public import X509

/// A private key with its certificate and the rest of its chain, as a `.p12` file carries them.
public struct PKCS12Identity: Sendable {
    /// The certificate the key belongs to.
    public var certificate: Certificate
    /// The other certificates of its chain (intermediates, perhaps the root), in file order.
    public var chain: [Certificate]
    /// The private key.
    public var privateKey: Certificate.PrivateKey

    /// Pairs them.
    ///
    /// - Throws: ``PKIError/Code/keyMismatch`` when the key does not belong to the certificate.
    public init(
        certificate: Certificate,
        chain: [Certificate] = [],
        privateKey: Certificate.PrivateKey
    ) throws(PKIError) {
        guard privateKey.publicKey == certificate.publicKey else {
            throw PKIError(.keyMismatch, "the private key does not belong to the certificate")
        }
        self.certificate = certificate
        self.chain = chain
        self.privateKey = privateKey
    }
}

/// PKCS#12 (`.p12`, `.pfx`) import and export (SwiftSecurity's `PKCS12.import`), through swift-nio-ssl's BoringSSL.
///
/// Import reads what OpenSSL 3 writes by default, `-legacy` files (RC2/3DES, SHA-1) and `-macalg sha512`; export
/// writes PBES2/PBKDF2/AES-256-CBC bags that `openssl pkcs12` reads. RSA and ECDSA keys round-trip; an Ed25519 key
/// exports but cannot be read back by this library (BoringSSL does not hand it out).
public enum PKCS12 {
    /// The largest file accepted, in bytes.
    public static let maximumEncodedBytes = 1 << 20

    /// The most iterations one key derivation of an imported file may ask for. OpenSSL writes 2,048, Java's
    /// keytool 10,000; 600,000 is OWASP's PBKDF2-SHA256 figure. A file asking for more is refused before anything
    /// is derived.
    public static let maximumIterations = 600_000

    /// The most key derivations (MAC, encrypted contents, shrouded keys) an imported file may name.
    public static let maximumDerivations = 4

    /// The most bags an imported file may hold (a key, its certificate and a chain need a handful).
    public static let maximumBags = 64

    /// The identity in a PKCS#12 file.
    ///
    /// What the file asks for is checked before any key is derived: at most ``maximumDerivations`` derivations of
    /// at most ``maximumIterations`` iterations each, and at most ``maximumBags`` bags.
    ///
    /// - Throws: ``PKIError/Code/tooExpensive`` past those limits; ``PKIError/Code/wrongPassphrase``;
    ///   ``PKIError/Code/unsupported`` for an algorithm BoringSSL or
    ///   this library does not handle (such as an Ed25519 key); ``PKIError/Code/invalidEncoding`` for anything that
    ///   is not PKCS#12; ``PKIError/Code/keyMismatch`` when the key does not belong to the first certificate.
    public static func `import`(_ bytes: [UInt8], passphrase: String) throws(PKIError) -> PKCS12Identity {
        guard bytes.count <= maximumEncodedBytes else {
            throw PKIError(.invalidEncoding, "a PKCS#12 file is at most \(maximumEncodedBytes) bytes")
        }
        try checkCost(of: bytes)
        var secret = Array(passphrase.utf8)
        defer { Wipe.bytes(&secret) }
        let bundle: NIOSSLPKCS12Bundle
        do {
            bundle = try NIOSSLPKCS12Bundle(buffer: bytes, passphrase: secret)
        } catch {
            throw classify(error)
        }
        guard let first = bundle.certificateChain.first else {
            throw PKIError(.invalidEncoding, "the PKCS#12 file holds no certificate")
        }
        let certificate = try convert(first)
        var chain: [Certificate] = []
        for extra in bundle.certificateChain.dropFirst() { chain.append(try convert(extra)) }
        var keyBytes: [UInt8]
        do {
            keyBytes = try bundle.privateKey.derBytes
        } catch {
            throw PKIError(.unsupported, "the PKCS#12 key's type cannot be read (Ed25519 is not)", underlying: error)
        }
        defer { Wipe.bytes(&keyBytes) }
        let key = try Certificate.PrivateKey(encoded: SecureBytes(copying: keyBytes))
        return try PKCS12Identity(certificate: certificate, chain: chain, privateKey: key)
    }

    /// A PKCS#12 file holding `identity`, protected by `passphrase`.
    ///
    /// - Throws: ``PKIError/Code/keyMismatch`` is impossible here (``PKCS12Identity`` checks it), but the key and
    ///   certificate are compared again before BoringSSL sees them: its serialiser crashes the process on a
    ///   mismatched pair. ``PKIError/Code/unsupported`` when BoringSSL cannot encode the key;
    ///   ``PKIError/Code/invalidParameters`` for an empty passphrase.
    public static func export(_ identity: PKCS12Identity, passphrase: String) throws(PKIError) -> [UInt8] {
        guard !passphrase.isEmpty else { throw PKIError(.invalidParameters, "a PKCS#12 passphrase is not empty") }
        guard identity.privateKey.publicKey == identity.certificate.publicKey else {
            throw PKIError(.keyMismatch, "the private key does not belong to the certificate")
        }
        var certificates: [NIOSSLCertificate] = []
        for certificate in [identity.certificate] + identity.chain {
            do {
                certificates.append(try NIOSSLCertificate(bytes: try certificate.derBytes(), format: .der))
            } catch let error as PKIError {
                throw error
            } catch {
                throw PKIError(.invalidEncoding, "a certificate could not be handed to BoringSSL", underlying: error)
            }
        }
        let pkcs8 = try identity.privateKey.pkcs8()
        let key: NIOSSLPrivateKey
        do {
            key = try pkcs8.withUnsafeBytes { bytes in try NIOSSLPrivateKey(bytes: Array(bytes), format: .der) }
        } catch {
            throw PKIError(.unsupported, "BoringSSL cannot load this key type", underlying: error)
        }
        // The guard above is what keeps `serialize` from crashing; BoringSSL's own view must agree too.
        guard let leafKey = try? certificates[0].extractPublicKey().toSPKIBytes(),
            leafKey == identity.certificate.publicKey.subjectPublicKeyInfo
        else { throw PKIError(.keyMismatch, "BoringSSL reads another key from the certificate") }
        var secret = Array(passphrase.utf8)
        defer { Wipe.bytes(&secret) }
        do {
            return try NIOSSLPKCS12Bundle(certificateChain: certificates, privateKey: key).serialize(passphrase: secret)
        } catch {
            throw PKIError(.unsupported, "the PKCS#12 file could not be written", underlying: error)
        }
    }

    /// Refuses a file that asks for more work than the limits allow, before BoringSSL derives anything.
    static func checkCost(of bytes: [UInt8]) throws(PKIError) {
        let cost = try PKCS12Cost(scanning: bytes)
        guard cost.derivations.count <= maximumDerivations else {
            throw PKIError(
                .tooExpensive,
                "the PKCS#12 file names \(cost.derivations.count) key derivations; at most \(maximumDerivations) are read"
            )
        }
        if let largest = cost.derivations.max(), largest > maximumIterations {
            throw PKIError(
                .tooExpensive,
                "the PKCS#12 file asks for \(largest) key-derivation iterations; at most \(maximumIterations) are accepted"
            )
        }
        guard cost.bags <= maximumBags else {
            throw PKIError(.tooExpensive, "the PKCS#12 file holds \(cost.bags) bags; at most \(maximumBags) are read")
        }
    }

    private static func convert(_ certificate: NIOSSLCertificate) throws(PKIError) -> Certificate {
        do {
            return try Certificate(derEncoded: try certificate.toDERBytes())
        } catch {
            throw PKIError(.invalidEncoding, "a certificate in the PKCS#12 file does not parse", underlying: error)
        }
    }

    /// BoringSSL's error queue, as a typed error.
    private static func classify(_ error: any Error) -> PKIError {
        let text = String(describing: error).uppercased()
        if text.contains("INCORRECT_PASSWORD") || text.contains("BAD_PKCS12") && text.contains("MAC")
            || text.contains("MAC_VERIFY") || text.contains("BAD_DECRYPT")
        {
            return PKIError(.wrongPassphrase, "the passphrase does not open the PKCS#12 file", underlying: error)
        }
        if text.contains("UNSUPPORTED") || text.contains("UNKNOWN_ALGORITHM") {
            return PKIError(
                .unsupported,
                "the PKCS#12 file uses an algorithm BoringSSL does not support",
                underlying: error
            )
        }
        return PKIError(.invalidEncoding, "the bytes are not a PKCS#12 file", underlying: error)
    }
}
