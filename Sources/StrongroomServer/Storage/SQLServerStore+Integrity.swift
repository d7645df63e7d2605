// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomCore
package import StrongroomWire

/// Integrity check-in: instances, challenges and reports, each bounded per client.
extension SQLServerStore {
    package func registerIntegrityInstance(
        _ instance: StoredIntegrityInstance,
        limit: Int
    ) async throws -> (instance: StoredIntegrityInstance, inserted: Bool)? {
        if let existing = try await integrityInstance(id: instance.instanceID) { return (existing, false) }
        let count =
            try await database.raw(
                "SELECT COUNT(*) AS n FROM integrity_instances WHERE client_id = \(bind: instance.clientID)"
            ).first()?.decode(column: "n", as: Int.self) ?? 0
        guard count < limit else { return nil }
        let inserted =
            try await database.raw(
                """
                INSERT INTO integrity_instances (instance_id, client_id, public_key, name, registered)
                VALUES (\(bind: instance.instanceID), \(bind: instance.clientID), \(bind: instance.publicKey),
                \(bind: instance.name), \(bind: instance.registered)) ON CONFLICT (instance_id) DO NOTHING
                RETURNING instance_id
                """
            ).first() != nil
        // Another request registered the same ID in between: what it stored stands.
        guard !inserted, let existing = try await integrityInstance(id: instance.instanceID) else {
            return (instance, true)
        }
        return (existing, false)
    }

    package func integrityInstance(id: String) async throws -> StoredIntegrityInstance? {
        guard
            let row = try await database.raw("SELECT * FROM integrity_instances WHERE instance_id = \(bind: id)")
                .first()
        else { return nil }
        return StoredIntegrityInstance(
            instanceID: try row.decode(column: "instance_id", as: String.self),
            clientID: try row.decode(column: "client_id", as: String.self),
            publicKey: try row.decode(column: "public_key", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            registered: try row.decode(column: "registered", as: Int64.self)
        )
    }

    package func insertIntegrityChallenge(
        nonce: String,
        clientID: String,
        expires: Int64,
        now: Int64,
        limit: Int
    ) async throws {
        try await database.raw("DELETE FROM integrity_challenges WHERE expires < \(bind: now)").run()
        try await database.raw(
            """
            INSERT INTO integrity_challenges (nonce, client_id, expires)
            VALUES (\(bind: nonce), \(bind: clientID), \(bind: expires))
            """
        ).run()
        try await database.raw(
            """
            DELETE FROM integrity_challenges WHERE client_id = \(bind: clientID) AND idx NOT IN
            (SELECT idx FROM integrity_challenges WHERE client_id = \(bind: clientID)
            ORDER BY idx DESC LIMIT \(bind: max(1, limit)))
            """
        ).run()
    }

    package func consumeIntegrityChallenge(nonce: String, clientID: String, now: Int64) async throws -> Bool {
        try await database.raw(
            """
            DELETE FROM integrity_challenges WHERE nonce = \(bind: nonce) AND client_id = \(bind: clientID)
            AND expires >= \(bind: now) RETURNING nonce
            """
        ).first() != nil
    }

    package func insertIntegrityReport(_ report: StoredIntegrityReport, keep: Int) async throws {
        try await database.transaction { session in
            try await session.raw(
                """
                INSERT INTO integrity_reports (client_id, instance_id, received, checked, verdict, findings, report)
                VALUES (\(bind: report.clientID), \(bind: report.instanceID), \(bind: report.received),
                \(bind: report.checked), \(bind: report.verdict.rawValue), \(bind: report.findings),
                \(bind: report.report))
                """
            ).run()
            try await session.raw(
                """
                UPDATE integrity_instances SET verdict = \(bind: report.verdict.rawValue)
                WHERE instance_id = \(bind: report.instanceID) AND client_id = \(bind: report.clientID)
                """
            ).run()
            if report.verdict == .compromised {
                try await session.raw(
                    """
                    INSERT INTO integrity_holds (client_id, since) VALUES (\(bind: report.clientID),
                    \(bind: report.received)) ON CONFLICT (client_id) DO NOTHING
                    """
                ).run()
            }
            try await session.raw(
                """
                DELETE FROM integrity_reports WHERE client_id = \(bind: report.clientID) AND idx NOT IN
                (SELECT idx FROM integrity_reports WHERE client_id = \(bind: report.clientID)
                ORDER BY idx DESC LIMIT \(bind: max(1, keep)))
                """
            ).run()
        }
    }

    package func integrityReports(clientID: String?, limit: Int, before: Int64?) async throws -> [StoredIntegrityReport]
    {
        let limit = max(1, min(limit, 100))
        var sql: SQLQueryString = """
            SELECT r.*, COALESCE(i.name, '') AS instance_name FROM integrity_reports r
            LEFT JOIN integrity_instances i ON i.instance_id = r.instance_id WHERE r.idx < \(bind: before ?? Int64.max)
            """
        if let clientID { sql += " AND r.client_id = \(bind: clientID)" }
        sql += " ORDER BY r.idx DESC LIMIT \(bind: limit)"
        return try await database.raw(sql).all().map { row in
            StoredIntegrityReport(
                clientID: try row.decode(column: "client_id", as: String.self),
                instanceID: try row.decode(column: "instance_id", as: String.self),
                instanceName: try row.decode(column: "instance_name", as: String.self),
                received: try row.decode(column: "received", as: Int64.self),
                checked: try row.decode(column: "checked", as: Int64.self),
                verdict: try Self.verdict(try row.decode(column: "verdict", as: String.self)),
                findings: try row.decode(column: "findings", as: String.self),
                report: try row.decode(column: "report", as: String.self),
                index: try row.decode(column: "idx", as: Int64.self)
            )
        }
    }

    package func integrityVerdict(clientID: String) async throws -> IntegrityVerdict? {
        let held =
            try await database.raw("SELECT since FROM integrity_holds WHERE client_id = \(bind: clientID)")
            .first() != nil
        if held { return .compromised }
        // Instances per client are bounded (`integrityInstancesPerClient`), so this reads a handful of rows.
        let verdicts = try await database.raw(
            """
            SELECT verdict FROM integrity_instances WHERE client_id = \(bind: clientID) AND verdict IS NOT NULL
            """
        ).all().map { try Self.verdict(try $0.decode(column: "verdict", as: String.self)) }
        return verdicts.max()
    }

    package func clearIntegrity(clientID: String) async throws -> Bool {
        try await database.transaction { session in
            let released =
                try await session.raw(
                    "DELETE FROM integrity_holds WHERE client_id = \(bind: clientID) RETURNING client_id"
                ).first() != nil
            let reset = try await session.raw(
                """
                UPDATE integrity_instances SET verdict = NULL WHERE client_id = \(bind: clientID)
                AND verdict IS NOT NULL RETURNING instance_id
                """
            ).all()
            return released || !reset.isEmpty
        }
    }

    private static func verdict(_ text: String) throws -> IntegrityVerdict {
        guard let verdict = IntegrityVerdict(rawValue: text) else {
            throw ServerError(.storage, "a stored integrity verdict is not understood")
        }
        return verdict
    }
}
