// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomTesting
import StrongroomWire
import Testing

/// Encrypted or not: every document test runs on both, through the same API.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case encrypted, unencrypted

    var testDescription: String { rawValue }

    /// The raw data key the encrypted runs use.
    static let keyBytes = [UInt8](repeating: 0x5C, count: 32)
    static var provider: SimpleKeyProvider { SimpleKeyProvider(key: try! EncryptionKey(keyBytes)) }

    /// The SQLCipher key: HKDF-SHA256(data key, "db"), as the file-format article says.
    static func databaseKeyHex() throws -> String {
        let key = try HKDFSHA256.deriveKey(from: SecureBytes(copying: keyBytes), label: "db")
        return key.withUnsafeBytes { bytes in bytes.map { String(format: "%02x", $0) }.joined() }
    }

    func open(_ manager: DatastoreManager, _ name: String = "docs") async throws -> Datastore {
        switch self {
        case .encrypted: try await manager.datastore(named: name, keyProvider: Self.provider)
        case .unencrypted: try manager.datastore(named: name)
        }
    }
}

/// Canary text every storage test writes; an encrypted datastore's folder must not contain any of it.
enum Canary {
    static let docID = "canary-doc-7f3a"
    static let field = "canaryFieldName"
    static let value = "CANARY-VALUE-91c2e4"
    static var body: [String: JSONValue] { [field: .string(value), "n": .number(1)] }
    static var all: [String] { [docID, field, value, "SQLite format 3"] }
}

/// Opens a fresh datastore of `kind`, runs `body`, closes it, and — for encrypted runs — checks that nothing in its
/// folder (database, WAL, shared memory, journals) holds a canary.
func withDatastore<R>(
    _ kind: StoreKind,
    limits: DatastoreLimits = .default,
    _ body: (Datastore, DatastoreManager) async throws -> R
) async throws -> R {
    try await withTemporaryDirectory { directory in
        let manager = try DatastoreManager(directory: directory, limits: limits)
        let store = try await kind.open(manager)
        let result = try await body(store, manager)
        if kind == .encrypted {
            let findings = try PlaintextScan.scan(directory, for: Canary.all)
            #expect(findings.isEmpty, "plaintext at rest: \(findings)")
            await store.close()
            let afterClose = try PlaintextScan.scan(directory, for: Canary.all)
            #expect(afterClose.isEmpty, "plaintext at rest after close: \(afterClose)")
        } else {
            await store.close()
        }
        return result
    }
}

/// The body's string field, for short assertions.
extension DocumentRevision {
    subscript(_ field: String) -> JSONValue? { body[field] }
}
