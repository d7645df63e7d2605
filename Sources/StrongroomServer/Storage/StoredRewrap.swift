// Strongroom — SPDX-License-Identifier: Apache-2.0

/// One record of a bulk re-wrap (docs/design/Revocation.md, "The bulk re-wrap"): its fields with their data keys
/// sealed again, to replace the stored ones when the record is still at `version`.
package struct RecordRewrap: Sendable, Hashable {
    package var recordID: String
    package var version: String
    package var data: [String: String]
    /// The version the record gets.
    package var newVersion: String

    package init(recordID: String, version: String, data: [String: String], newVersion: String) {
        (self.recordID, self.version, self.data, self.newVersion) = (recordID, version, data, newVersion)
    }

    /// What became of one record.
    package enum Outcome: Sendable, Hashable {
        /// Stored, at ``RecordRewrap/newVersion``.
        case rewrapped
        /// The record is at another version: nothing stored.
        case conflict
        /// No such committed record of the scope.
        case notFound
        /// More than the data keys' wraps differ (other fields, or a value ciphertext or nonce): the whole batch is
        /// refused, nothing stored.
        case changed
    }

    /// Whether `new` differs from `stored` only in its fields' data-key wraps: the same field names, and each
    /// E3DB field (`EDK.EDKN.EF.EFN`) keeping its value ciphertext and nonce (`EF.EFN`).
    package static func onlyWrapsDiffer(_ new: [String: String], from stored: [String: String]) -> Bool {
        guard new.count == stored.count else { return false }
        for (name, value) in new {
            guard let old = stored[name], let newValue = valueHalf(of: value), let oldValue = valueHalf(of: old),
                newValue.elementsEqual(oldValue)
            else { return false }
        }
        return true
    }

    /// `EF.EFN` of an E3DB field `EDK.EDKN.EF.EFN`, as UTF-8: what follows its second dot, when it has exactly
    /// three (compared as bytes: splitting a String compares grapheme clusters, several times slower).
    static func valueHalf(of field: String) -> Substring.UTF8View? {
        let bytes = field.utf8
        var (dots, start) = (0, bytes.endIndex)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == UInt8(ascii: ".") {
                dots += 1
                if dots == 2 { start = bytes.index(after: index) }
            }
            index = bytes.index(after: index)
        }
        return dots == 3 ? field[start...].utf8 : nil
    }
}
