// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomKeychain
public import StrongroomPKI
import StrongroomWire
import X509

extension Client {
    /// The transport options this client was made with (trust, timeouts, retries, client identity).
    public var transportOptions: TransportOptions { transport.options }

    /// Enrolls this client for mutual TLS (ConfidoIOS's flow, end to end): generates a key pair of `algorithm` in
    /// `keychain` under `label`, sends a CSR signed inside the keychain module, stores the issued certificate with
    /// its key as the identity `label` (the CA chain under `label.chain.N`), and returns a client that presents it
    /// on every request.
    ///
    /// A failed enrollment removes the key pair it made, so a retry starts clean.
    ///
    /// - Throws: ``ClientError/Code/conflict`` when `keychain` holds a key pair or identity `label` already (renew
    ///   with ``renewCertificate(keychain:label:rotatingKey:)``, or remove it first); ``ClientError/Code/invalidConfiguration``
    ///   when the keychain refuses; the server's refusals by their status (not found when the server has no CA).
    public func enroll(
        keychain: Keychain,
        label: String,
        algorithm: KeyAlgorithm = .p256
    ) async throws(ClientError) -> Client {
        // Keychain work (file I/O, the key's generation and signature) runs on the blocking executor, the request
        // between the two steps on the caller's task.
        let csr = try await BlockingExecutor.shared.run { _ throws(ClientError) in
            try self.makeKeyPairAndRequest(keychain: keychain, label: label, algorithm: algorithm)
        }
        do {
            let issued = try await authenticated(
                .POST,
                E3DBPath.enroll.render(),
                body: EnrollmentRequest(csr: csr),
                success: [201],
                as: EnrollmentResponse.self
            )
            let identity = try await BlockingExecutor.shared.run { _ throws(ClientError) in
                try self.storeIssued(issued, keychain: keychain, label: label)
            }
            return try switchingTo(identity)
        } catch {
            // Best effort: the key pair is this call's own and no certificate names it in the keychain.
            await BlockingExecutor.shared.run { _ in _ = try? keychain.removeKeyPair(tag: label) }
            throw error
        }
    }

    /// Enrollment's first step: refuses a taken `label`, makes the key pair, and returns its CSR (PEM).
    private func makeKeyPairAndRequest(
        keychain: Keychain,
        label: String,
        algorithm: KeyAlgorithm
    ) throws(ClientError) -> String {
        let existing: Bool
        do {
            existing = try keychain.keyPair(for: label) != nil || keychain.retrieve(.identity(for: label)) != nil
        } catch {
            throw ClientError(.invalidConfiguration, "the keychain cannot be read", underlying: error)
        }
        guard !existing else {
            throw ClientError(
                .conflict,
                "the keychain already holds a key or identity named \(label): choose another label, renew it, or delete it first"
            )
        }
        let pair: KeychainKeyPair
        do {
            pair = try keychain.generateKeyPair(algorithm, tag: label)
        } catch {
            throw ClientError(.invalidConfiguration, "the key pair \(label) could not be created", underlying: error)
        }
        do {
            return try signingRequest(signer: pair)
        } catch {
            _ = try? keychain.removeKeyPair(tag: label)  // best effort, as in enroll: the pair is this call's own
            throw error
        }
    }

    /// Enrollment's last step: stores the issued certificate with the key pair's private key as the identity `label`.
    private func storeIssued(
        _ issued: EnrollmentResponse,
        keychain: Keychain,
        label: String
    ) throws(ClientError) -> ClientIdentity {
        let key: Certificate.PrivateKey?
        do {
            key = try keychain.retrieve(.privateKey(for: label), as: Certificate.PrivateKey.self)
        } catch {
            throw ClientError(.invalidConfiguration, "the key \(label) cannot be read back", underlying: error)
        }
        guard let key else { throw ClientError(.invalidConfiguration, "the key \(label) disappeared") }
        return try store(issued, key: key, in: keychain, label: label, replacing: false)
    }

    /// Renews this client's certificate over mutual TLS with the current one (T.A.K's re-registration): the
    /// server issues a new certificate, revokes the current one as superseded, and the identity `label` in
    /// `keychain` is replaced. With `rotatingKey`, a new key of the same type is used for the new certificate.
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when `label` holds no identity;
    ///   ``ClientError/Code/unauthorized`` when the server does not accept the current certificate (expired,
    ///   revoked).
    public func renewCertificate(
        keychain: Keychain,
        label: String,
        rotatingKey: Bool = false
    ) async throws(ClientError) -> Client {
        let current = try await BlockingExecutor.shared.run { _ throws(ClientError) in
            try ClientIdentity.keychain(keychain, label: label)
        }
        let key: Certificate.PrivateKey
        do {
            key =
                rotatingKey
                ? try KeyAlgorithm(of: current.certificate.publicKey).generatePrivateKey()
                : try current.unsealedPrivateKey()
        } catch {
            throw ClientError(.invalidConfiguration, "a new key could not be made", underlying: error)
        }
        var options = transport.options
        options.clientIdentity = current
        let mutual = try Transport(apiURL: configuration.apiURL, http: Client.defaultHTTPClient, options: options)
        let (data, _) = try await mutual.expect(
            .POST,
            E3DBPath.renew.render(),
            authorization: nil,
            body: EnrollmentRequest(csr: try signingRequest(signer: InMemorySigner(key))),
            success: [201]
        )
        let issued = try Transport.decode(EnrollmentResponse.self, from: data)
        let renewed = try await BlockingExecutor.shared.run { _ throws(ClientError) in
            try self.store(issued, key: key, in: keychain, label: label, replacing: true)
        }
        return try switchingTo(renewed)
    }

    /// A CSR naming this client only (`CN=<id>`, SAN URI `urn:strongroom:client:<id>`, EKU clientAuth), as PEM.
    private func signingRequest(signer: some CertificateSigner) throws(ClientError) -> String {
        var template = SigningRequestTemplate(commonName: clientID)
        template.uris = [ClientCertificateName.uri(for: clientID)]
        template.extendedKeyUsage = [.clientAuth]
        do {
            return try template.signingRequest(signer: signer).pemString()
        } catch {
            throw ClientError(.invalidConfiguration, "the CSR could not be made", underlying: error)
        }
    }

    /// Stores the issued certificate with `key` as the identity `label` and returns it as a TLS identity.
    private func store(
        _ issued: EnrollmentResponse,
        key: Certificate.PrivateKey,
        in keychain: Keychain,
        label: String,
        replacing: Bool
    ) throws(ClientError) -> ClientIdentity {
        do {
            let certificate = try CertificateBundle.certificates(from: Array(issued.certificate.utf8))[0]
            let chain = try CertificateBundle.certificates(from: Array(issued.chain.utf8))
            try keychain.store(
                try PKCS12Identity(certificate: certificate, chain: chain, privateKey: key),
                label: label,
                replacing: replacing
            )
            return try ClientIdentity(certificate: certificate, privateKey: key, intermediates: chain)
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.invalidConfiguration, "the issued certificate could not be stored", underlying: error)
        }
    }

    /// This client with the same configuration and options, presenting `identity`.
    private func switchingTo(_ identity: ClientIdentity) throws(ClientError) -> Client {
        var options = transport.options
        options.clientIdentity = identity
        return try Client(configuration: configuration, options: options)
    }
}

extension ClientIdentity {
    /// The identity stored as `label` in `keychain` (by ``Client/enroll(keychain:label:algorithm:)`` or a `.p12`
    /// import), with the chain certificates stored beside it.
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when there is none or it cannot be read.
    public static func keychain(_ keychain: Keychain, label: String) throws(ClientError) -> ClientIdentity {
        do {
            guard let stored = try keychain.chainedIdentity(for: label) else {
                throw ClientError(.invalidConfiguration, "the keychain holds no identity \(label)")
            }
            return try ClientIdentity(
                certificate: stored.certificate,
                privateKey: stored.privateKey,
                intermediates: stored.chain
            )
        } catch let error as ClientError {
            throw error
        } catch {
            throw ClientError(.invalidConfiguration, "the identity \(label) cannot be read", underlying: error)
        }
    }
}
