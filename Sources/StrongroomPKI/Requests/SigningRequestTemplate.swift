// Strongroom — SPDX-License-Identifier: Apache-2.0

import Foundation
import StrongroomCore
import SwiftASN1
public import X509

/// What a certificate signing request asks for (ConfidoIOS's `CertificateSigningRequest` attributes): a subject,
/// subject alternative names and the key usages wanted. Signed by a ``CertificateSigner`` — such as a key pair in
/// the keychain — so the private key never leaves its owner.
///
/// ```swift
/// var template = SigningRequestTemplate(commonName: "alice's phone")
/// template.organization = "Example Ltd"
/// template.emailAddresses = ["alice@example.com"]
/// template.extendedKeyUsage = [.clientAuth]
/// let csr = try template.signingRequest(signer: keyPair)
/// ```
public struct SigningRequestTemplate: Sendable, Hashable {
    /// The subject's common name (CN).
    public var commonName: String?
    /// Organisation (O).
    public var organization: String?
    /// Organisational unit (OU).
    public var organizationalUnit: String?
    /// Country (C): two letters.
    public var country: String?
    /// State or province (ST).
    public var stateOrProvince: String?
    /// Locality (L).
    public var locality: String?
    /// The PKCS#9 `emailAddress` subject attribute.
    public var emailAddress: String?
    /// DNS names for the subject alternative name extension.
    public var dnsNames: [String] = []
    /// E-mail addresses (rfc822Name) for the subject alternative name extension.
    public var emailAddresses: [String] = []
    /// URIs for the subject alternative name extension (such as `urn:strongroom:client:<uuid>`).
    public var uris: [String] = []
    /// IPv4 or IPv6 addresses, as text, for the subject alternative name extension.
    public var ipAddresses: [String] = []
    /// Requested key usage (none requested when nil).
    public var keyUsage: KeyUsage?
    /// Requested extended key usages.
    public var extendedKeyUsage: [ExtendedKeyUsage.Usage] = []

    /// A template with only a common name; set the rest as needed.
    public init(commonName: String? = nil) { self.commonName = commonName }

    /// The subject as a distinguished name, in the usual order (C, ST, L, O, OU, CN, emailAddress).
    ///
    /// - Throws: ``PKIError/Code/invalidParameters`` for an empty subject or a country that is not two letters.
    public func subject() throws(PKIError) -> DistinguishedName {
        var names: [RelativeDistinguishedName] = []
        func add(_ type: ASN1ObjectIdentifier, _ value: String?) throws(PKIError) {
            guard let value else { return }
            guard !value.isEmpty, value.utf8.count <= 256 else {
                throw PKIError(.invalidParameters, "a subject attribute is 1 to 256 bytes")
            }
            do {
                let attribute =
                    type == .RDNAttributeType.countryName
                    ? try RelativeDistinguishedName.Attribute(type: type, printableString: value)
                    : type == .RDNAttributeType.emailAddress
                        ? try RelativeDistinguishedName.Attribute(type: type, ia5String: value)
                        : RelativeDistinguishedName.Attribute(type: type, utf8String: value)
                names.append(RelativeDistinguishedName(attribute))
            } catch {
                throw PKIError(.invalidParameters, "a subject attribute has characters its type does not allow")
            }
        }
        if let country, country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw PKIError(.invalidParameters, "the country is two letters")
        }
        try add(.RDNAttributeType.countryName, country)
        try add(.RDNAttributeType.stateOrProvinceName, stateOrProvince)
        try add(.RDNAttributeType.localityName, locality)
        try add(.RDNAttributeType.organizationName, organization)
        try add(.RDNAttributeType.organizationalUnitName, organizationalUnit)
        try add(.RDNAttributeType.commonName, commonName)
        try add(.RDNAttributeType.emailAddress, emailAddress)
        guard !names.isEmpty else { throw PKIError(.invalidParameters, "the subject names nothing") }
        return DistinguishedName(names)
    }

    /// The subject alternative names, in the order DNS, e-mail, URI, IP.
    ///
    /// - Throws: ``PKIError/Code/invalidParameters`` for an IP address that does not parse.
    public func alternativeNames() throws(PKIError) -> [GeneralName] {
        var names = dnsNames.map(GeneralName.dnsName) + emailAddresses.map(GeneralName.rfc822Name)
        names += uris.map(GeneralName.uniformResourceIdentifier)
        for address in ipAddresses {
            guard let bytes = IPAddressText.bytes(address) else {
                throw PKIError(.invalidParameters, "\(address.prefix(64)) is not an IPv4 or IPv6 address")
            }
            names.append(.ipAddress(ASN1OctetString(contentBytes: bytes[...])))
        }
        return names
    }

    /// The requested extensions (SANs, key usage, EKU), as a CSR's extension request carries them.
    public func extensions() throws(PKIError) -> Certificate.Extensions {
        var extensions = Certificate.Extensions()
        do {
            let names = try alternativeNames()
            if !names.isEmpty {
                try extensions.append(Certificate.Extension(SubjectAlternativeNames(names), critical: false))
            }
            if let keyUsage { try extensions.append(Certificate.Extension(keyUsage, critical: true)) }
            if !extendedKeyUsage.isEmpty {
                try extensions.append(Certificate.Extension(ExtendedKeyUsage(extendedKeyUsage), critical: false))
            }
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError(.invalidParameters, "the requested extensions are invalid", underlying: error)
        }
        return extensions
    }

    /// A CSR for this template, signed by `signer` with its key type's signature algorithm.
    ///
    /// - Throws: ``PKIError/Code/invalidParameters`` for a bad template; the signer's errors.
    public func signingRequest(signer: some CertificateSigner) throws(PKIError) -> CertificateSigningRequest {
        let subject = try subject()
        let extensions = try extensions()
        let algorithm = try KeyAlgorithm(of: signer.publicKey).signatureAlgorithm
        do {
            let attributes =
                extensions.isEmpty
                ? CertificateSigningRequest.Attributes()
                : CertificateSigningRequest.Attributes([try .init(ExtensionRequest(extensions: extensions))])
            return try CertificateSigningRequest(
                version: .v1,
                subject: subject,
                privateKey: Certificate.PrivateKey(SignerKey(signer: signer)),
                attributes: attributes,
                signatureAlgorithm: algorithm
            )
        } catch let error as PKIError {
            throw error
        } catch {
            throw PKIError(.invalidParameters, "the CSR could not be built", underlying: error)
        }
    }
}

/// IPv4 and IPv6 text to network-order bytes, with `inet_pton`.
enum IPAddressText {
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard bytes.count == 4 || bytes.count == 16,
            inet_ntop(family, bytes, &buffer, socklen_t(buffer.count)) != nil
        else { return bytes.map { String($0) }.joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
