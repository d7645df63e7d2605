// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCore

/// Client certificates issued by the server's CA.
extension SQLServerStore {
    package func insertCertificate(_ certificate: StoredCertificate) async throws {
        try await database.raw(
            """
            INSERT INTO client_certificates (serial, client_id, not_before, not_after, issued, fingerprint)
            VALUES (\(bind: certificate.serial), \(bind: certificate.clientID), \(bind: certificate.notBefore),
            \(bind: certificate.notAfter), \(bind: certificate.issued), \(bind: certificate.fingerprint))
            """
        ).run()
    }

    package func certificate(serial: String) async throws -> StoredCertificate? {
        try await database.raw("SELECT * FROM client_certificates WHERE serial = \(bind: serial)").first()
            .map(Self.storedCertificate)
    }

    package func certificates(clientID: String?, limit: Int) async throws -> [StoredCertificate] {
        let limit = max(1, min(limit, 10_000))
        if let clientID {
            return try await database.raw(
                """
                SELECT * FROM client_certificates WHERE client_id = \(bind: clientID)
                ORDER BY issued DESC, serial LIMIT \(bind: limit)
                """
            ).all().map(Self.storedCertificate)
        }
        return try await database.raw(
            "SELECT * FROM client_certificates ORDER BY issued DESC, serial LIMIT \(bind: limit)"
        ).all().map(Self.storedCertificate)
    }

    package func certificateCount(clientID: String, issuedSince time: Int64) async throws -> Int {
        try await database.raw(
            """
            SELECT COUNT(*) AS issued FROM client_certificates WHERE client_id = \(bind: clientID)
            AND issued >= \(bind: time)
            """
        ).first()?.decode(column: "issued", as: Int.self) ?? 0
    }

    package func revokeCertificate(serial: String, at time: Int64, reason: String) async throws -> Bool {
        try await database.raw(
            """
            UPDATE client_certificates SET revoked_at = \(bind: time), revocation_reason = \(bind: reason)
            WHERE serial = \(bind: serial) AND revoked_at IS NULL RETURNING serial
            """
        ).first() != nil
    }

    package func revokedCertificates(validAt time: Int64, limit: Int) async throws -> [StoredCertificate] {
        try await database.raw(
            """
            SELECT * FROM client_certificates WHERE revoked_at IS NOT NULL AND not_after > \(bind: time)
            ORDER BY revoked_at, serial LIMIT \(bind: max(1, limit))
            """
        ).all().map(Self.storedCertificate)
    }

    private static func storedCertificate(_ row: any SQLRow) throws -> StoredCertificate {
        StoredCertificate(
            serial: try row.decode(column: "serial", as: String.self),
            clientID: try row.decode(column: "client_id", as: String.self),
            notBefore: try row.decode(column: "not_before", as: Int64.self),
            notAfter: try row.decode(column: "not_after", as: Int64.self),
            issued: try row.decode(column: "issued", as: Int64.self),
            fingerprint: try row.decode(column: "fingerprint", as: String.self),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self),
            revocationReason: try row.decode(column: "revocation_reason", as: String?.self)
        )
    }

    package func nextRevocationListNumber(atLeast minimum: Int64) async throws -> Int64 {
        // One statement, so instances sharing the database never hand out a number twice.
        let larger = engine == .postgres ? "GREATEST" : "MAX"
        let row = try await database.raw(
            """
            INSERT INTO settings (key, value) VALUES ('crl_number', \(bind: String(minimum)))
            ON CONFLICT (key) DO UPDATE SET value = CAST(\(unsafeRaw: larger)(CAST(settings.value AS BIGINT) + 1,
            \(bind: minimum)) AS TEXT) RETURNING value
            """
        ).first()
        guard let text = try row?.decode(column: "value", as: String.self), let number = Int64(text), number >= 0 else {
            throw ServerError(.storage, "the stored CRL number is not a number")
        }
        return number
    }
}
