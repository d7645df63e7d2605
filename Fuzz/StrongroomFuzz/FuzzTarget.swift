// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Every parser that reads bytes a peer, a server or a file on disk controls. Each run must end in a value or a
/// typed error: a crash, a sanitizer report, a leak or an input slower than libFuzzer's timeout is a finding.
enum FuzzTarget: String, CaseIterable {
    /// The TSV1 `Authorization` header, with the request path and query it signs.
    case tsv1
    /// The server's record-body scanner (a record write), then the JSON decoder it falls back to.
    case recordBody = "record-body"
    /// A v1 search body and its plain-metadata filter.
    case searchV1 = "search-v1"
    /// A v2 search body, the filter built from it (wildcards, regular expressions) and a match against a record.
    case searchV2 = "search-v2"
    /// The SDK's plain-JSON reader for a record answer.
    case plainJSON = "plain-json"
    /// An encrypted access key in E3DB's wire format.
    case eak
    /// An encrypted field in E3DB's wire format.
    case encryptedField = "encrypted-field"
    /// An encrypted file: header, then the stream, decrypted in pieces.
    case fileFormat = "file-format"
    /// A certificate signing request, PEM or DER.
    case csr
    /// A certificate (DER), its key bound and as a chain of intermediates.
    case certificate
    /// A certificate revocation list's outer structure.
    case crl
    /// A PKCS#12 bundle (cost scan, then import).
    case pkcs12
    /// The keychain file's envelope.
    case keychainFile = "keychain-file"
    /// A datastore query selector, then a match against a document.
    case selector
    /// A datastore revision ID.
    case revisionID = "revision-id"
    /// A datastore's stored body (read back from the database file): the JSON reader, then the canonical writer,
    /// whose output must read back equal.
    case storedBody = "stored-body"
    /// An integrity report and an executable manifest (the shield), and the summary the server reads.
    case integrityReport = "integrity-report"
    /// The key log's parsers and verifiers: a signed note and its verification, a checkpoint, a note verifier key,
    /// inclusion and consistency proofs (the first byte picks which).
    case keylog
    /// An age file (post-quantum and X25519 stanzas, header, MAC, STREAM), decrypted in pieces.
    case age

    func run(_ input: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .tsv1: FuzzServer.tsv1(input)
        case .recordBody: FuzzServer.recordBody(input)
        case .searchV1: FuzzServer.searchV1(input)
        case .searchV2: FuzzServer.searchV2(input)
        case .plainJSON: FuzzFormats.plainJSON(input)
        case .eak: FuzzFormats.eak(input)
        case .encryptedField: FuzzFormats.encryptedField(input)
        case .fileFormat: FuzzFormats.fileFormat(input)
        case .csr: FuzzPKI.csr(input)
        case .certificate: FuzzPKI.certificate(input)
        case .crl: FuzzPKI.crl(input)
        case .pkcs12: FuzzPKI.pkcs12(input)
        case .keychainFile: FuzzStores.keychainFile(input)
        case .selector: FuzzStores.selector(input)
        case .revisionID: FuzzStores.revisionID(input)
        case .storedBody: FuzzStores.storedBody(input)
        case .integrityReport: FuzzStores.integrityReport(input)
        case .keylog: FuzzFormats.keylog(input)
        case .age: FuzzFormats.age(input)
        }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The input as text (invalid UTF-8 repaired, as every receiver of a `String` sees it).
    var text: String { String(decoding: self, as: UTF8.self) }

    /// The input split at its first `count - 1` newlines (missing parts are empty).
    func parts(_ count: Int) -> [String] {
        var parts = text.split(separator: "\n", maxSplits: count - 1, omittingEmptySubsequences: false).map(String.init)
        while parts.count < count { parts.append("") }
        return parts
    }
}
