// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomTesting
import StrongroomWire
import Testing

/// Structured request logs and Prometheus metrics: what an operator watches, and nothing a caller must keep secret.
@Suite struct ObservabilityTests {
    static let adminToken = String(repeating: "m", count: 40)

    @Test("each request logs method, route template, status, latency and client ID; never a query string")
    func requestLogs() async throws {
        let records = LogRecords()
        var logger = Logger(label: "strongroom-test") { _ in CapturingLogHandler(records: records) }
        logger.logLevel = .info
        try await TestServer.run(engine: .sqlite, logger: logger) { api in
            let client = try await api.register()
            let record = try await api.writeRecord(as: client, type: "t", fields: ["f": "v"], accessKey: AccessKey())
            let id = record.meta.recordID
            _ = try await api.request(.get, "/v1/storage/records/\(id)", authorization: "Bearer \(client.token)")
            _ = try await api.request(.get, "/v1/storage/records/\(id)?secret=query")
            let lines = records.all.filter { $0.contains(" request ") }
            #expect(
                lines.contains {
                    $0.contains("POST") && $0.contains("/v1/storage/records") && $0.contains("201")
                        && $0.contains(client.clientID) && $0.contains("latency_ms")
                },
                "\(lines)"
            )
            #expect(lines.contains { $0.contains("/v1/storage/records/{id}") && $0.contains("200") }, "\(lines)")
            #expect(lines.contains { $0.contains("/v1/storage/records/{id}") && $0.contains("401") }, "\(lines)")
            let text = records.all.joined(separator: "\n")
            #expect(!text.contains(id), "record IDs stay out: the route template is logged")
            #expect(!text.contains("secret=query"))
            #expect(!text.contains(client.token))
        }
    }

    @Test("/metrics needs the admin token and counts requests per route and file-body bytes; without one it is absent")
    func prometheusMetrics() async throws {
        try await TestServer.run(engine: .sqlite) { api in
            let absent = try await api.request(.get, "/metrics")
            #expect(absent.status == .notFound)
        }
        try await TestServer.run(engine: .sqlite, adminToken: Self.adminToken) { api in
            let anonymous = try await api.request(.get, "/metrics")
            #expect(anonymous.status == .unauthorized)
            let wrong = try await api.request(.get, "/metrics", authorization: "Bearer wrong")
            #expect(wrong.status == .unauthorized)
            let client = try await api.register()
            _ = try await api.writeRecord(as: client, type: "t", fields: ["f": "v"], accessKey: AccessKey())
            let body = Array("ciphertext of a file".utf8)
            let create = FileWriteRequest(
                meta: .init(
                    writerID: client.clientID,
                    userID: client.clientID,
                    type: "f",
                    plain: [:],
                    fileMeta: FileMeta(
                        checksum: Data(Insecure.MD5.hash(data: body)).base64EncodedString(),
                        compression: "raw",
                        size: Int64(body.count)
                    )
                )
            )
            let pending = try await api.request(.post, "/v1/storage/files", token: client.token, json: create)
            let file = try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: pending.body))
            let url = try #require(URLComponents(string: file.fileURL))
            let put = try await api.client.execute(
                uri: url.path + "?" + (url.percentEncodedQuery ?? ""),
                method: .put,
                body: ByteBuffer(bytes: body)
            )
            #expect(put.status == .ok)

            // The HTTP parser also accepts WebDAV's and other methods: those share one label value.
            for method in ["PROPFIND", "PURGE"] {
                _ = try await api.client.execute(uri: "/health", method: try #require(HTTPRequest.Method(method)))
            }

            let metrics = try await api.request(.get, "/metrics", authorization: "Bearer \(Self.adminToken)")
            #expect(metrics.status == .ok)
            let text = String(buffer: metrics.body)
            #expect(
                text.contains(
                    #"strongroom_http_requests_total{method="POST",route="/v1/storage/records",status="201"} 1"#
                ),
                "\(text)"
            )
            #expect(
                text.contains(
                    #"strongroom_http_request_duration_seconds_count{method="POST",route="/v1/storage/records"} 1"#
                )
            )
            #expect(text.contains(#"route="/v1/storage/blobs/{id}",status="200""#))
            #expect(text.contains("strongroom_blob_bytes_in_total \(body.count)"), "\(text)")
            #expect(!text.contains(client.clientID), "no client IDs in labels")
            #expect(text.contains(#"strongroom_http_requests_total{method="OTHER",route="#), "\(text)")
            #expect(!text.contains("PROPFIND") && !text.contains("PURGE"))
            // Pool use: nothing else runs now, and registering, writing and uploading ran statements.
            #expect(text.contains("strongroom_database_queries_in_flight 0"), "\(text)")
            #expect(text.contains("strongroom_database_sessions_in_flight 0"), "\(text)")
            let queries = text.split(separator: "\n").first { $0.hasPrefix("strongroom_database_queries_total ") }
            let count = queries.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            #expect(count >= 5, "\(queries ?? "no strongroom_database_queries_total")")
        }
    }
}
