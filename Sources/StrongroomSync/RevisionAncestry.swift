// Strongroom — SPDX-License-Identifier: Apache-2.0

import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Revision IDs and ancestries as a revision record holds them.
enum RevisionAncestry {
    /// The generation of `revision` (`N` of `N-hash`): 1 to 2³¹−1, the hash 1 to 64 letters or digits.
    static func generation(of revision: String) throws(SyncError) -> Int {
        let bytes = Array(revision.utf8)
        guard bytes.count <= ReplicationLimits.maximumRevisionIDBytes,
            let dash = bytes.firstIndex(of: UInt8(ascii: "-")),
            (1...10).contains(dash), (1...64).contains(bytes.count - dash - 1),
            bytes[..<dash].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            bytes[(dash + 1)...].allSatisfy({ isAlphanumeric($0) }),
            let generation = Int(String(decoding: bytes[..<dash], as: UTF8.self)),
            (1...Int(Int32.max)).contains(generation), bytes[0] != UInt8(ascii: "0")
        else {
            throw SyncError(.invalidRecord, "a revision ID is not N-hash")
        }
        return generation
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// The ancestry as a JSON array of strings (revision IDs need no escaping).
    static func json(_ ancestry: [String]) -> String {
        "[" + ancestry.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    /// Parses a JSON array of strings, each a revision ID (checked by the record afterwards).
    static func parse(_ text: String) throws(SyncError) -> [String] {
        guard let array = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
            throw SyncError(.invalidRecord, "the ancestry is not a JSON array of revision IDs")
        }
        return array
    }
}
