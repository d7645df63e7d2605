// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// A certificate stored in the keychain (``SecCertificate`` items), as DER. swift-certificates' `Certificate`
/// conforms.
public protocol KeychainCertificateConvertible: Sendable {
    /// Recreates the certificate from DER.
    init(keychainCertificateDER: [UInt8]) throws(KeychainError)
    /// The DER encoding.
    func keychainCertificateDER() throws(KeychainError) -> [UInt8]
}

extension Certificate: KeychainCertificateConvertible {
    public init(keychainCertificateDER der: [UInt8]) throws(KeychainError) {
        do {
            self = try Certificate(derEncoded: der)
        } catch {
            throw KeychainError(.typeMismatch, "the stored bytes are not a DER certificate")
        }
    }

    public func keychainCertificateDER() throws(KeychainError) -> [UInt8] {
        do {
            var serializer = DER.Serializer()
            try serializer.serialize(self)
            return serializer.serializedBytes
        } catch {
            throw KeychainError(.invalidParameters, "the certificate could not be encoded")
        }
    }
}

/// A certificate with its private key, stored as a ``SecIdentity`` item (SwiftSecurity's `SecIdentityConvertible`):
/// adopt it so your own identity type stores and loads as ``DigitalIdentity`` does.
///
/// The keychain checks that the key matches the certificate both when it stores an identity and when it loads one,
/// before your initialiser runs.
///
/// ```swift
/// struct DeviceIdentity: KeychainIdentityConvertible {
///     var certificate: Certificate
///     var privateKey: Certificate.PrivateKey
///     init(certificate: Certificate, privateKey: Certificate.PrivateKey) throws(KeychainError) {
///         self.certificate = certificate
///         self.privateKey = privateKey
///     }
/// }
/// try keychain.store(device, query: .identity(for: "device"))
/// let again = try keychain.retrieve(.identity(for: "device"), as: DeviceIdentity.self)
/// ```
public protocol KeychainIdentityConvertible: Sendable {
    /// Recreates the identity from a certificate and the private key that matches it.
    init(certificate: Certificate, privateKey: Certificate.PrivateKey) throws(KeychainError)
    /// The certificate.
    var certificate: Certificate { get }
    /// The private key matching the certificate's public key.
    var privateKey: Certificate.PrivateKey { get }
}

/// A certificate and its private key (``SecIdentity`` items), as SwiftSecurity's `DigitalIdentity`.
public struct DigitalIdentity: KeychainIdentityConvertible, Hashable {
    /// The certificate.
    public var certificate: Certificate
    /// The private key matching the certificate's public key.
    public var privateKey: Certificate.PrivateKey

    /// Pairs a certificate with its private key.
    ///
    /// - Throws: ``KeychainError/Code/invalidParameters`` when the key does not match the certificate.
    public init(certificate: Certificate, privateKey: Certificate.PrivateKey) throws(KeychainError) {
        guard privateKey.publicKey == certificate.publicKey else {
            throw KeychainError(.invalidParameters, "the private key does not belong to the certificate")
        }
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// The stored form: the certificate's DER, then the key's PKCS#8 PEM, in one JSON object.
    var stored: SecureBytes {
        get throws(KeychainError) {
            let pem: String
            do {
                pem = try privateKey.serializeAsPEM().pemString
            } catch {
                throw KeychainError(.invalidParameters, "the private key could not be encoded")
            }
            let object = [
                "certificate": Data(try certificate.keychainCertificateDER()).base64EncodedString(), "key": pem,
            ]
            // Cannot fail: a dictionary of strings always encodes.
            let data = (try? JSONEncoder().encode(object)) ?? Data()
            return SecureBytes(copying: data)
        }
    }

    init(stored: SecureBytes) throws(KeychainError) {
        let object = stored.withUnsafeBytes { try? JSONDecoder().decode([String: String].self, from: Data($0)) }
        guard let object, let der = object["certificate"].flatMap({ Data(base64Encoded: $0) }), let pem = object["key"]
        else {
            throw KeychainError(.typeMismatch, "the stored bytes are not a digital identity")
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: pem)
        } catch {
            throw KeychainError(.typeMismatch, "the stored private key does not parse")
        }
        try self.init(certificate: try Certificate(keychainCertificateDER: Array(der)), privateKey: key)
    }
}
