// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomShield

/// How a downloaded file is stored (`Client.readFile(recordID:destination:protection:progress:)`).
public enum FileProtection: Sendable {
    /// As plaintext (the file is still written only after it all authenticated).
    case none
    /// Encrypted at rest under the protector's keychain key; no plaintext reaches the disk.
    case protected(FileProtector)
}
