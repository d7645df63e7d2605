// Strongroom — SPDX-License-Identifier: Apache-2.0

import Crypto
import StrongroomCore
public import X509
import _CryptoExtras

/// The kinds of key pair Strongroom generates and stores: ConfidoIOS's key types, with Ed25519 beside them.
public enum KeyAlgorithm: Sendable, Hashable, CustomStringConvertible {
    /// ECDSA on NIST P-256 (the safe default for TLS identities).
    case p256
    /// ECDSA on NIST P-384.
    case p384
    /// ECDSA on NIST P-521.
    case p521
    /// Ed25519.
    case ed25519
    /// RSA with a 2048, 3072 or 4096-bit modulus (PKCS#1 v1.5 signatures with SHA-256).
    case rsa(bits: Int)

    /// The key type's name: `p256`, `p384`, `p521`, `ed25519` or `rsa`.
    public var keyType: String {
        switch self {
        case .p256: "p256"
        case .p384: "p384"
        case .p521: "p521"
        case .ed25519: "ed25519"
        case .rsa: "rsa"
        }
    }

    /// The key size in bits (the curve's field size for ECDSA, 256 for Ed25519, the modulus for RSA).
    public var keySizeInBits: Int {
        switch self {
        case .p256, .ed25519: 256
        case .p384: 384
        case .p521: 521
        case .rsa(let bits): bits
        }
    }

    public var description: String {
        if case .rsa(let bits) = self { return "rsa-\(bits)" }
        return keyType
    }

    /// Parses `p256`, `p384`, `p521`, `ed25519`, `rsa` (2048 bits), `rsa-2048`, `rsa-3072`, `rsa-4096`.
    public init?(name: String) {
        switch name.lowercased() {
        case "p256", "p-256", "ec": self = .p256
        case "p384", "p-384": self = .p384
        case "p521", "p-521": self = .p521
        case "ed25519": self = .ed25519
        case "rsa", "rsa-2048", "rsa2048": self = .rsa(bits: 2048)
        case "rsa-3072", "rsa3072": self = .rsa(bits: 3072)
        case "rsa-4096", "rsa4096": self = .rsa(bits: 4096)
        default: return nil
        }
    }

    /// The algorithm of an existing key.
    ///
    /// - Throws: ``PKIError/Code/unsupported`` for a key type outside this list.
    public init(of publicKey: Certificate.PublicKey) throws(PKIError) {
        if P256.Signing.PublicKey(publicKey) != nil {
            self = .p256
        } else if P384.Signing.PublicKey(publicKey) != nil {
            self = .p384
        } else if P521.Signing.PublicKey(publicKey) != nil {
            self = .p521
        } else if Curve25519.Signing.PublicKey(publicKey) != nil {
            self = .ed25519
        } else if let rsa = _RSA.Signing.PublicKey(publicKey) {
            self = .rsa(bits: rsa.keySizeInBits)
        } else {
            throw PKIError(.unsupported, "the key is of a type Strongroom does not handle")
        }
    }

    /// A new private key of this kind, from the system's secure random source.
    ///
    /// - Throws: ``PKIError/Code/invalidParameters`` for an RSA size other than 2048, 3072 or 4096.
    public func generatePrivateKey() throws(PKIError) -> Certificate.PrivateKey {
        switch self {
        case .p256: return Certificate.PrivateKey(P256.Signing.PrivateKey())
        case .p384: return Certificate.PrivateKey(P384.Signing.PrivateKey())
        case .p521: return Certificate.PrivateKey(P521.Signing.PrivateKey())
        case .ed25519: return Certificate.PrivateKey(Curve25519.Signing.PrivateKey())
        case .rsa(let bits):
            let size: _RSA.Signing.KeySize
            switch bits {
            case 2048: size = .bits2048
            case 3072: size = .bits3072
            case 4096: size = .bits4096
            default: throw PKIError(.invalidParameters, "RSA keys are 2048, 3072 or 4096 bits, not \(bits)")
            }
            do {
                return Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: size))
            } catch {
                throw PKIError(.unsupported, "the RSA key could not be generated", underlying: error)
            }
        }
    }

    /// The signature algorithm Strongroom signs with for this key type: ECDSA with SHA-256/384/512 by curve,
    /// Ed25519, or RSA PKCS#1 v1.5 with SHA-256.
    public var signatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .p256: .ecdsaWithSHA256
        case .p384: .ecdsaWithSHA384
        case .p521: .ecdsaWithSHA512
        case .ed25519: .ed25519
        case .rsa: .sha256WithRSAEncryption
        }
    }
}
