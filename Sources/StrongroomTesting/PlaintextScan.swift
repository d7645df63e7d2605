// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// Searches files for secrets a test wrote: every storage test ends with a scan of what it stored (database and its
/// WAL, blobs, keychain file, datastore), and expects no finding.
public enum PlaintextScan {
    /// One secret found in one file.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// The file, relative to the scanned root.
        public var file: String
        /// The index of the secret in the list scanned for (the secret itself is not repeated here).
        public var secretIndex: Int

        public var description: String { "\(file) contains secret #\(secretIndex)" }
    }

    /// Every occurrence of any of `secrets` (as raw bytes) in `root`, a file or a folder scanned recursively.
    /// Empty secrets are ignored.
    public static func scan(_ root: URL, for secrets: [Data]) throws -> [Finding] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else { return [] }
        let files: [(name: String, url: URL)] =
            isDirectory.boolValue
            ? try FileManager.default.subpathsOfDirectory(atPath: root.path).map { ($0, root.appending(path: $0)) }
            : [(root.lastPathComponent, root)]
        var findings: [Finding] = []
        for (name, url) in files {
            var fileIsDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &fileIsDirectory),
                !fileIsDirectory.boolValue
            else { continue }
            let bytes = try Data(contentsOf: url)
            for (index, secret) in secrets.enumerated() where !secret.isEmpty && bytes.range(of: secret) != nil {
                findings.append(Finding(file: name, secretIndex: index))
            }
        }
        return findings
    }

    /// ``scan(_:for:)`` with secrets given as text (searched as UTF-8).
    public static func scan(_ root: URL, for secrets: [String]) throws -> [Finding] {
        try scan(root, for: secrets.map { Data($0.utf8) })
    }
}
