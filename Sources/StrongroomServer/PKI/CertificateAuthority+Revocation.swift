// Strongroom — SPDX-License-Identifier: Apache-2.0
package import Foundation
import StrongroomCore
package import StrongroomPKI
import X509

extension CertificateAuthority {
    /// A revocation list signed by the CA naming every revoked certificate still valid at `now`, for relying parties
    /// outside this server (the server itself checks the database at every handshake).
    ///
    /// Its CRL number comes from a counter in the database (``ServerStore/nextRevocationListNumber(atLeast:)``), so
    /// every list any instance signs has a number above the last one, and never below the clock-based numbers of
    /// earlier versions; `nextUpdate` is `now + validity`. A renewal's superseded certificate carries the reason `superseded`.
    ///
    /// - Throws: ``ServerError/Code/configuration`` when more certificates are revoked and in force than one list
    ///   holds (shorten certificate lifetimes) or the validity is outside 1 minute to 400 days.
    package func revocationList(
        store: any CertificateStore,
        now: Date,
        validity: Duration = .seconds(3600)
    ) async throws -> CertificateRevocationList {
        let seconds = validity.components.seconds
        guard (60...400 * 86_400).contains(seconds) else {
            throw ServerError(.configuration, "a revocation list is valid for 1 minute to 400 days")
        }
        let time = Int64(now.timeIntervalSince1970.rounded(.down))
        let limit = CertificateRevocationList.maximumEntries
        let revoked = try await store.revokedCertificates(validAt: time, limit: limit + 1)
        guard revoked.count <= limit else {
            throw ServerError(.configuration, "more than \(limit) revoked certificates are in force: shorten lifetimes")
        }
        // A row the list cannot name is an error, never a revoked certificate silently left off the list.
        let entries = try revoked.map { stored throws(ServerError) -> CertificateRevocationList.Entry in
            guard let revokedAt = stored.revokedAt, let serial = Self.serialNumber(hex: stored.serial) else {
                throw ServerError(.storage, "a revoked certificate's stored serial or time is damaged")
            }
            return CertificateRevocationList.Entry(
                serialNumber: serial,
                revocationDate: Date(timeIntervalSince1970: TimeInterval(revokedAt)),
                reason: stored.revocationReason == "superseded" ? .superseded : nil
            )
        }
        let thisUpdate = Date(timeIntervalSince1970: TimeInterval(time))
        let number = try await store.nextRevocationListNumber(atLeast: max(time, 0))
        return try CertificateRevocationList(
            issuer: certificate,
            key: key,
            entries: entries,
            number: number,
            thisUpdate: thisUpdate,
            nextUpdate: thisUpdate.addingTimeInterval(TimeInterval(seconds))
        )
    }

    /// The serial a stored lowercase-hex serial stands for, or nil for text that is not hex.
    static func serialNumber(hex: String) -> Certificate.SerialNumber? {
        guard (2...64).contains(hex.utf8.count), let bytes = hexBytes(hex) else { return nil }
        return Certificate.SerialNumber(bytes: bytes[...])
    }
}
