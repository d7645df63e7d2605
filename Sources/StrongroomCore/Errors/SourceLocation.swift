// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Where an error was created, filled in from `#fileID` and `#line` by the error factories.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The `#fileID` of the source file, such as `StrongroomCrypto/FieldCipher.swift`.
    public var fileID: String
    /// The line in that file.
    public var line: Int

    /// Creates a location; normally you let the error factories do this.
    public init(fileID: String = #fileID, line: Int = #line) {
        self.fileID = fileID
        self.line = line
    }

    public var description: String { "\(fileID):\(line)" }
}
