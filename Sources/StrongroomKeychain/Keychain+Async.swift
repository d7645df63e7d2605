// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

extension Keychain {
    /// Runs keychain calls from async code without blocking the cooperative pool: `body` runs on a worker thread,
    /// where the encrypted file's `flock` and disk writes (or a Secret Service round trip) may wait as long as they
    /// need.
    ///
    /// ```swift
    /// let token = try await keychain.perform { keychain in
    ///     try keychain.retrieve(.credential(for: "deploy", service: "registry"), as: String.self)
    /// }
    /// ```
    /// The synchronous API stays for code ported from SwiftSecurity; in async code, prefer this.
    ///
    /// - Throws: whatever `body` throws.
    public func perform<R: Sendable>(
        _ body: @escaping @Sendable (Keychain) throws(KeychainError) -> R
    ) async throws(KeychainError) -> R {
        try await BlockingExecutor.shared.run { _ throws(KeychainError) in try body(self) }
    }
}
