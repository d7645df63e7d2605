// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomBackend
import StrongroomPKI
import StrongroomTesting
import Synchronization
import Testing
import X509

/// `ClientCertificatePolicy.Revocation.revocationList`: the CA's list, fetched, checked and kept; a certificate on it
/// is refused, and without a current list every certificate is (fail closed). The clock is the test's own.
@Suite struct RevocationListPolicyTests {
    /// A PKI, two leaves of its root, and a list the root signs at the test's clock.
    final class Setup: Sendable {
        let pki: TestPKI
        let revokedLeaf: TestPKI.Issued
        let goodLeaf: TestPKI.Issued
        /// The test's clock: seconds after the PKI's reference time.
        let offset = Mutex<TimeInterval>(0)
        /// What the next fetch returns (nil: it fails), and how many fetches there were.
        let served = Mutex<[UInt8]?>(nil)
        let fetches = Mutex(0)

        init() throws {
            pki = try TestPKI(referenceTime: Date())
            revokedLeaf = try pki.leaf(commonName: "lost phone", usage: [.clientAuth])
            goodLeaf = try pki.leaf(commonName: "alice's phone", usage: [.clientAuth])
        }

        var now: Date { pki.referenceTime + offset.withLock { $0 } }

        /// A list by `signer` (the root when nil) revoking `revoked`, made now and due in half an hour (the leaves are
        /// valid for an hour).
        func list(revoking revoked: [TestPKI.Issued], signer: TestPKI.Issued? = nil) throws -> [UInt8] {
            let signer = signer ?? pki.root
            return try CertificateRevocationList(
                issuer: signer.certificate,
                key: signer.privateKey,
                entries: revoked.map { .init(serialNumber: $0.certificate.serialNumber, revocationDate: now) },
                number: 1,
                thisUpdate: now,
                nextUpdate: now + 1800
            ).derBytes
        }

        /// A policy trusting `anchors` (the root when nil), checking lists `issuers` signed (the root's when nil).
        func policy(
            refreshInterval: Duration = .seconds(300),
            anchors: [Certificate]? = nil,
            issuers: [Certificate]? = nil
        ) -> ClientCertificatePolicy {
            ClientCertificatePolicy(
                anchors: anchors ?? [pki.root.certificate],
                revocation: .revocationList(
                    issuers: issuers ?? [pki.root.certificate],
                    refreshInterval: refreshInterval,
                    now: { [self] in now }
                ) { [self] in
                    fetches.withLock { $0 += 1 }
                    guard let bytes = served.withLock({ $0 }) else { throw CancellationError() }
                    return bytes
                },
                now: { [self] in now }
            )
        }
    }

    @Test("a certificate on the list is refused, another accepted; one fetch serves many checks")
    func refusesListed() async throws {
        let setup = try Setup()
        setup.served.withLock { $0 = try? setup.list(revoking: [setup.revokedLeaf]) }
        let policy = setup.policy()
        #expect(await policy.refusal(of: setup.revokedLeaf.certificate) == "the certificate is revoked")
        #expect(await policy.refusal(of: setup.goodLeaf.certificate) == nil)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { _ = await policy.refusal(of: setup.goodLeaf.certificate) } }
        }
        #expect(setup.fetches.withLock { $0 } == 1)
        // PEM works as well as DER.
        let pem = try #require(setup.served.withLock { $0 }).pemOfCRL()
        setup.served.withLock { $0 = Array(pem.utf8) }
        let again = setup.policy()
        #expect(await again.refusal(of: setup.revokedLeaf.certificate) == "the certificate is revoked")
    }

    @Test("past the refresh interval the list is fetched again: a new revocation takes effect")
    func refreshes() async throws {
        let setup = try Setup()
        setup.served.withLock { $0 = try? setup.list(revoking: []) }
        let policy = setup.policy(refreshInterval: .zero)
        #expect(await policy.refusal(of: setup.revokedLeaf.certificate) == nil)
        setup.served.withLock { $0 = try? setup.list(revoking: [setup.revokedLeaf]) }
        // The newer list is fetched beside the checks, which use the held one meanwhile: within a few checks it is
        // in use (the bound only stops a hang).
        var checks = 0
        while await policy.refusal(of: setup.revokedLeaf.certificate) == nil, checks < 3_000 {
            checks += 1
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await policy.refusal(of: setup.revokedLeaf.certificate) == "the certificate is revoked")
    }

    @Test("a fetch that hangs holds up no check while the held list is current")
    func hangingFetch() async throws {
        let setup = try Setup()
        let list = try setup.list(revoking: [setup.revokedLeaf])
        let hang = Mutex(false)
        let policy = ClientCertificatePolicy(
            anchors: [setup.pki.root.certificate],
            revocation: .revocationList(issuers: [setup.pki.root.certificate], refreshInterval: .zero) {
                if hang.withLock({ $0 }) { try await Task.sleep(for: .seconds(3600)) }
                return list
            }
        )
        #expect(await policy.refusal(of: setup.revokedLeaf.certificate) == "the certificate is revoked")
        hang.withLock { $0 = true }
        for _ in 0..<3 {
            #expect(await policy.refusal(of: setup.revokedLeaf.certificate) == "the certificate is revoked")
            #expect(await policy.refusal(of: setup.goodLeaf.certificate) == nil)
        }
    }

    @Test("fail closed: no list, a stale list, another CA's list, another issuer's certificate")
    func failsClosed() async throws {
        let setup = try Setup()
        let refused = "revocation could not be checked"
        // No list can be fetched.
        #expect(await setup.policy().refusal(of: setup.goodLeaf.certificate) == refused)
        // A list signed by another CA with the same name.
        let impostor = try TestPKI(referenceTime: setup.pki.referenceTime)
        setup.served.withLock { $0 = try? setup.list(revoking: [], signer: impostor.root) }
        #expect(await setup.policy().refusal(of: setup.goodLeaf.certificate) == refused)
        // Two issuers of one name (a re-keyed CA): the list is checked against the one whose key signed it.
        let both = [impostor.root.certificate, setup.pki.root.certificate]
        setup.served.withLock { $0 = try? setup.list(revoking: [setup.revokedLeaf]) }
        let rekeyed = setup.policy(issuers: both)
        #expect(await rekeyed.refusal(of: setup.revokedLeaf.certificate) == "the certificate is revoked")
        // A current list, then the fetch fails: the held list serves until its nextUpdate, then nothing does.
        setup.served.withLock { $0 = try? setup.list(revoking: []) }
        let policy = setup.policy(refreshInterval: .zero)
        #expect(await policy.refusal(of: setup.goodLeaf.certificate) == nil)
        setup.served.withLock { $0 = nil }
        setup.offset.withLock { $0 = 1500 }
        #expect(await policy.refusal(of: setup.goodLeaf.certificate) == nil, "the held list is still current")
        setup.offset.withLock { $0 = 1800 }
        #expect(await policy.refusal(of: setup.goodLeaf.certificate) == refused, "past its nextUpdate")
        // A list served after its nextUpdate is not used either.
        setup.offset.withLock { $0 = 0 }
        let stale = try setup.list(revoking: [])
        setup.offset.withLock { $0 = 1801 }
        setup.served.withLock { $0 = stale }
        #expect(await setup.policy().refusal(of: setup.goodLeaf.certificate) == refused)
        // A certificate another anchor issued: the root's list does not cover it.
        setup.offset.withLock { $0 = 0 }
        setup.served.withLock { $0 = try? setup.list(revoking: []) }
        let other = try setup.pki.leaf(commonName: "bob", usage: [.clientAuth], issuer: setup.pki.intermediate)
        let anchors = [setup.pki.root.certificate, setup.pki.intermediate.certificate]
        #expect(await setup.policy(anchors: anchors).refusal(of: other.certificate) == refused)
        #expect(await setup.policy(anchors: anchors).refusal(of: setup.goodLeaf.certificate) == nil)
    }
}

extension [UInt8] {
    /// These DER bytes as a PEM revocation list.
    func pemOfCRL() -> String {
        let body = Data(self).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN X509 CRL-----\n\(body)\n-----END X509 CRL-----\n"
    }
}
