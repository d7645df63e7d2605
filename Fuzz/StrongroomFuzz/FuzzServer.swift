// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomWire

@testable import StrongroomServer

/// What a client sends the server before any authorisation decision.
enum FuzzServer {
    /// Input: `header \n path \n query`.
    static func tsv1(_ input: UnsafeBufferPointer<UInt8>) {
        let parts = input.parts(3)
        _ = try? TSV1.Header(parsing: parts[0])
        _ = try? TSV1.verify(
            parts[0],
            for: .init(method: "POST", path: parts[1], query: parts[2]),
            now: Date(timeIntervalSince1970: 1_000_000_000)
        )
    }

    static func recordBody(_ input: UnsafeBufferPointer<UInt8>) {
        _ = RecordWriteRequest.plainJSON(input)
        _ = try? JSONDecoder().decode(RecordWriteRequest.self, from: Data(input))
    }

    static func searchV1(_ input: UnsafeBufferPointer<UInt8>) {
        guard let request = try? JSONDecoder().decode(SearchRequest.self, from: Data(input)) else { return }
        _ = request.plain?.matches(["kind": "note", "owner": "alice", "": ""])
    }

    static func searchV2(_ input: UnsafeBufferPointer<UInt8>) {
        guard let request = try? JSONDecoder().decode(SearchV2Request.self, from: Data(input)),
            let filter = try? SearchV2Filter(request)
        else { return }
        var budget = SearchBudget(units: ServerLimits().searchWorkUnits)
        _ = try? filter.accepts(sampleRecord, budget: &budget)
    }

    private static let sampleRecord = StoredRecord(
        index: 1,
        recordID: "9c2a4f1e-0b7d-4f43-9d55-1f0e3a6b2c11",
        writerID: "0e8eb8c6-839f-46ca-9843-801c539e490f",
        userID: "0e8eb8c6-839f-46ca-9843-801c539e490f",
        type: "note",
        plain: ["kind": "note", "owner": "alice", "tag": "Ünïcode ✓"],
        data: ["body": "ciphertext"],
        recordSignature: nil,
        created: Timestamp(microseconds: 1_000_000_000_000_000),
        lastModified: Timestamp(microseconds: 1_000_000_000_000_000),
        version: "5e7a2f6c-8a8e-4b8e-9a57-2f1a0c9d3e44",
        fileMeta: nil,
        isPending: false
    )
}
