// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Something a test waited for did not happen within its (generous) limit.
public struct DidNotHappen: Error, CustomStringConvertible {
    public let description: String
}

/// Waits until `found` holds, polling every 20 ms, and returns how long that took: for what a live process makes
/// happen (a replication, a restart). Never a timed assertion — `limit` is far above any expected latency: ten
/// minutes by default, since a loaded CI run once took more than 90 s for two replicas' first passes.
///
/// - Throws: ``DidNotHappen`` after `limit`; what `found` throws.
public func eventually(
    _ what: String,
    limit: Duration = .seconds(600),
    _ found: () async throws -> Bool
) async throws -> Duration {
    let start = ContinuousClock.now
    while try await !found() {
        guard ContinuousClock.now - start < limit else { throw DidNotHappen(description: "\(what) did not happen") }
        try await Task.sleep(for: .milliseconds(20))
    }
    return ContinuousClock.now - start
}
