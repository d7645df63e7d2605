// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomPKI
public import X509

extension ClientCertificatePolicy.Revocation {
    /// The CA's certificate revocation list: a certificate on it is refused.
    ///
    /// `fetch` returns the list's bytes, DER or PEM (from a Strongroom server's `GET /v1/pki/crl`, the CA's
    /// distribution point, a file). Each list is checked before it is used: signed by one of `issuers` (the policy's
    /// anchors) and naming it, at most `CertificateRevocationList.maximumEncodedBytes` bytes, complete (no delta,
    /// partitioned or indirect list), and current — made no later than five minutes from now and with a
    /// `nextUpdate` still ahead. The list is fetched when first needed, again once it is `refreshInterval` old
    /// (so a revocation takes effect within that time, not only at the list's `nextUpdate`), and concurrent checks
    /// share one fetch. While a current list is held, checks use it and a newer one is fetched beside them (so a
    /// fetch that hangs holds up no handshake); a failed fetch, or a list that does not check, keeps the previous
    /// list while it is current, and is tried again 30 seconds later.
    ///
    /// Revocation fails closed: with no current list, or for a certificate another CA than the list's issued, the
    /// certificate is refused.
    ///
    /// - Parameters:
    ///   - issuers: The CA certificates whose lists are accepted.
    ///   - refreshInterval: How old a list may get before it is fetched again (default five minutes).
    ///   - now: The clock lists are judged by.
    ///   - fetch: Gets the list's bytes.
    public static func revocationList(
        issuers: [Certificate],
        refreshInterval: Duration = .seconds(300),
        now: @escaping @Sendable () -> Date = { Date() },
        fetch: @escaping @Sendable () async throws -> [UInt8]
    ) -> Self {
        let cache = RevocationListCache(issuers: issuers, refreshInterval: refreshInterval, now: now, fetch: fetch)
        return .custom { certificate in try await cache.list(covering: certificate).contains(certificate.serialNumber) }
    }
}

/// The list ``ClientCertificatePolicy/Revocation/revocationList(issuers:refreshInterval:now:fetch:)`` holds: fetched,
/// checked and kept, one fetch at a time.
actor RevocationListCache {
    let issuers: [Certificate]
    let refreshInterval: Duration
    let now: @Sendable () -> Date
    let fetch: @Sendable () async throws -> [UInt8]
    /// The list in use and when it was fetched.
    private var held: (list: CertificateRevocationList, at: ContinuousClock.Instant)?
    /// The fetch under way, shared by every check waiting for it.
    private var fetching: Task<CertificateRevocationList, any Error>?
    /// When a fetch last failed: while a current list is held, the next waits ``retryDelay``.
    private var failed: ContinuousClock.Instant?

    /// How long a failed fetch is not tried again while the held list is still current.
    static let retryDelay: Duration = .seconds(30)
    /// How far ahead of this machine's clock a list's `thisUpdate` may be (the CA's clock may run ahead).
    static let clockSkew: TimeInterval = 300

    init(
        issuers: [Certificate],
        refreshInterval: Duration,
        now: @escaping @Sendable () -> Date,
        fetch: @escaping @Sendable () async throws -> [UInt8]
    ) {
        self.issuers = issuers
        self.refreshInterval = refreshInterval
        self.now = now
        self.fetch = fetch
    }

    /// A current list that covers `certificate`'s issuer; throws when there is none.
    func list(covering certificate: Certificate) async throws -> CertificateRevocationList {
        let list = try await currentList()
        guard list.issuer == certificate.issuer else {
            throw PKIError(.untrustedIssuer, "no revocation list covers the certificate's issuer")
        }
        return list
    }

    private func currentList() async throws -> CertificateRevocationList {
        if let held, Self.isCurrent(held.list, at: now()) {
            // Checks go on with the held list while a newer one is fetched: a fetch that hangs holds up no handshake.
            let clock = ContinuousClock.now
            let resting = failed.map { clock - $0 < Self.retryDelay } ?? false
            if clock - held.at >= refreshInterval, !resting { _ = startFetch() }
            return held.list
        }
        // No current list: wait for one (and fail closed without it).
        return try await startFetch().value
    }

    /// The fetch under way, or a new one; its outcome is kept when it ends.
    private func startFetch() -> Task<CertificateRevocationList, any Error> {
        if let fetching { return fetching }
        let (fetch, issuers, now) = (self.fetch, self.issuers, self.now)
        let task = Task {
            do {
                let list = try await Self.fetchChecked(fetch: fetch, issuers: issuers, now: now)
                self.finish(with: list)
                return list
            } catch {
                self.finish(with: nil)
                throw error
            }
        }
        fetching = task
        return task
    }

    /// Keeps a fetched list (nil: the fetch failed) and ends the fetch.
    private func finish(with list: CertificateRevocationList?) {
        fetching = nil
        if let list {
            (held, failed) = ((list, ContinuousClock.now), nil)
        } else {
            failed = ContinuousClock.now
        }
    }

    /// Fetches, reads and checks a list off the cooperative pool (a long list is seconds of parsing).
    private static func fetchChecked(
        fetch: @Sendable () async throws -> [UInt8],
        issuers: [Certificate],
        now: @Sendable () -> Date
    ) async throws -> CertificateRevocationList {
        let bytes = try await fetch()
        guard bytes.count <= CertificateRevocationList.maximumEncodedBytes * 2 else {
            throw PKIError(.invalidEncoding, "the revocation list is too large")
        }
        let list = try await BlockingExecutor.shared.run { _ in try read(bytes, issuers: issuers) }
        guard isCurrent(list, at: now()) else {
            throw PKIError(.expired, "the revocation list is not current (past its nextUpdate, or not yet made)")
        }
        return list
    }

    /// `bytes` (DER, or PEM) as a list one of `issuers` signed.
    static func read(_ bytes: [UInt8], issuers: [Certificate]) throws -> CertificateRevocationList {
        let pem = bytes.starts(with: Array("-----BEGIN".utf8))
        let der =
            pem ? try CertificateRevocationList.derBytes(pemEncoded: String(decoding: bytes, as: UTF8.self)) : bytes
        return try CertificateRevocationList(derEncoded: der, issuers: issuers)
    }

    /// Whether `list` may be used at `date`: made by then (give or take the skew) and not yet due for replacement.
    static func isCurrent(_ list: CertificateRevocationList, at date: Date) -> Bool {
        guard let nextUpdate = list.nextUpdate else { return false }
        return list.thisUpdate <= date.addingTimeInterval(clockSkew) && date < nextUpdate
    }
}
