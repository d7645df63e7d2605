// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StrongroomServer
import StrongroomServerTesting
import StrongroomWire
import Testing

/// `GET /openapi.yaml` describes exactly the routes the application mounts, both ways, and each operation's
/// security matches its route's guard (issue 45, item 2).
@Suite struct OpenAPIDriftTests {
    /// Each operation in the served description: "METHOD /path" → its `security:` line.
    static func operations(in document: String) -> [String: String] {
        var operations: [String: String] = [:]
        var inPaths = false
        var path: String?
        var method: String?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
                method = nil
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let word = line.trimmingCharacters(in: .whitespaces).dropLast()
                method = ["get", "put", "post", "delete", "patch"].contains(String(word)) ? String(word) : nil
                if let path, let method { operations["\(method.uppercased()) \(path)"] = "" }
            } else if let path, let method, line.hasPrefix("      security: ") {
                operations["\(method.uppercased()) \(path)"] = String(line.dropFirst("      security: ".count))
            }
        }
        return operations
    }

    @Test("the served OpenAPI description lists every mounted route and no other, with the security of its guard")
    func noDrift() async throws {
        let document: String = try await TestServer.run { api in
            let response = try await api.request(.get, "/openapi.yaml")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/yaml")
            return String(buffer: response.body)
        }
        #expect(document.hasPrefix("openapi: 3.1.0"))
        let described = Self.operations(in: document)
        #expect(described.count == 64, "\(described.keys.sorted())")
        let routes = try await SecurityReviewServerTests.inventory()
        let mounted = Dictionary(uniqueKeysWithValues: routes.map { ("\($0.method) \($0.path)", $0.guarding) })
        #expect(Set(described.keys).subtracting(mounted.keys).isEmpty, "described, not mounted")
        #expect(Set(mounted.keys).subtracting(described.keys).isEmpty, "mounted, not described")
        for (operation, guarding) in mounted {
            let expected: String
            switch guarding {
            case .open: expected = operation == "POST /v1/auth/token" ? "[{apiKey: []}]" : "[]"
            case .admin: expected = "[{adminToken: []}]"
            case .client, .integrityCheckIn: expected = "[{bearer: []}, {tsv1: []}]"
            case .note: expected = "[{tsv1: []}]"
            case .certificate: expected = "[{mutualTLS: []}]"
            }
            #expect(described[operation] == expected, "\(operation)")
        }
        // No secret in it: it is served to anyone.
        for word in ["BEGIN PRIVATE", "token_key", "secret:"] { #expect(!document.contains(word)) }
    }

    @Test("the E3DB path list the SDK renders its requests from is exactly the API the server mounts")
    func onePathList() async throws {
        let mounted = Set(
            try await SecurityReviewServerTests.inventory().map(\.path).filter {
                $0.hasPrefix("/v1/") || $0.hasPrefix("/v2/")
            }
        )
        // The inventory spells a parameter as OpenAPI does ({id}); a template as the router reads it (:id).
        let listed = Set(
            E3DBPath.all.map { path in
                path.template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                    segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
                }.joined(separator: "/")
            }
        )
        #expect(E3DBPath.all.count == listed.count, "a path is listed twice")
        #expect(listed.subtracting(mounted).isEmpty, "listed, not mounted: \(listed.subtracting(mounted).sorted())")
        #expect(mounted.subtracting(listed).isEmpty, "mounted, not listed: \(mounted.subtracting(listed).sorted())")
    }
}
