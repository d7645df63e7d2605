// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Writes one line to standard error.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
