// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// Runs `body` with a fresh temporary directory, removed afterwards.
public func withTemporaryDirectory<R>(_ body: (URL) async throws -> R) async throws -> R {
    let url = FileManager.default.temporaryDirectory.appending(path: "strongroom-test-\(UUID().uuidString)")
    // Owner-only, as a real data directory is (the server tightens and warns about anything looser).
    try FileManager.default.createDirectory(
        at: url,
        withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700]
    )
    defer { try? FileManager.default.removeItem(at: url) }  // best effort: the OS cleans temp directories too
    return try await body(url)
}
