// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomShield
import StrongroomWire

@testable import StrongroomDatastore
@testable import StrongroomKeychain

/// Files a local store reads back, and queries an app passes through from its users.
enum FuzzStores {
    static func keychainFile(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? KeychainDocument.decode(Data(input))
    }

    static func selector(_ input: UnsafeBufferPointer<UInt8>) {
        guard let selector = try? JSONDecoder().decode([String: JSONValue].self, from: Data(input)),
            let parsed = try? SelectorParser.parse(selector)
        else { return }
        _ = SelectorMatcher.matches(parsed, sampleDocument)
    }

    /// Built per input: as a lazily initialised global, LeakSanitizer reports its boxes (it cannot see pointers
    /// kept in an indirect enum's spare bits, so a global JSONValue looks unreachable at exit).
    private static var sampleDocument: [String: JSONValue] {
        [
            "name": "Ada", "age": 36, "tags": ["math", "engines"], "address": ["city": "London", "zip": .null],
            "score": 9.5, "active": true,
        ]
    }

    static func revisionID(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? RevisionID.parse(input.text)
    }

    static func storedBody(_ input: UnsafeBufferPointer<UInt8>) {
        guard let body = try? JSONReader.object(from: UnsafeRawBufferPointer(input)) else { return }
        let canonical = CanonicalJSON.encode(body)
        let again = try? canonical.withUnsafeBytes { try JSONReader.object(from: $0) }
        precondition(again == body, "a body the reader accepted does not survive the canonical writer")
    }

    static func integrityReport(_ input: UnsafeBufferPointer<UInt8>) {
        let data = Data(input)
        _ = try? IntegrityReport(jsonRepresentation: data)
        _ = try? SignedExecutableManifest(jsonRepresentation: data)
        _ = try? JSONDecoder().decode(IntegrityReportSummary.self, from: data)
    }
}
