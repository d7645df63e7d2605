// Strongroom — SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// How long a connection may take over each part of a request, and how many connections the server holds open.
///
/// Apache's `mod_reqtimeout` is the model: a request head must arrive within ``headerTimeout`` of its first byte;
/// a body gets ``bodyTimeout`` and one more second for every ``bodyMinimumRate`` bytes received, so a trickle of
/// one byte every few seconds is closed, while a large upload at any reasonable speed is not.
public struct ConnectionLimits: Sendable, Hashable {
    /// A connection with no request in progress is closed after this long.
    public var idleTimeout: Duration = .seconds(60)
    /// A request head must be complete this long after its first byte arrived.
    public var headerTimeout: Duration = .seconds(10)
    /// A request body's initial allowance.
    public var bodyTimeout: Duration = .seconds(30)
    /// Bytes per second a body must keep up on average to earn more time.
    public var bodyMinimumRate: Int = 1024
    /// Connections held open at most. At the cap, a new connection displaces the longest-idle one; when none is
    /// idle it is closed at once.
    public var maximumConnections: Int = ConnectionLimits.defaultMaximumConnections

    /// The defaults.
    public init() {}

    /// Half the process's file-descriptor limit (the rest is for the database, blobs and logs), between 16 and
    /// 4096.
    public static var defaultMaximumConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 256 }
        let soft = limit.rlim_cur == rlim_t.max ? 8192 : Int(clamping: limit.rlim_cur)
        return min(4096, max(16, soft / 2))
    }
}
