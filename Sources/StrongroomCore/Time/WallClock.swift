// Strongroom — SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The source of wall-clock timestamps (TSV1 headers, token expiry, certificate validity).
///
/// Durations use `Clock`; this seam exists for points in calendar time, so that signed headers can be
/// reproduced in tests.
public protocol WallClock: Sendable {
    /// The current time.
    var now: Date { get }
}

/// The system's real time.
public struct SystemWallClock: WallClock {
    /// Creates the system clock.
    public init() {}
    public var now: Date { Date() }
}

/// A clock stuck at one instant, for vectors and tests.
@_spi(Testing)
public struct FixedWallClock: WallClock {
    /// The instant this clock always reports.
    public var now: Date

    /// Creates a clock that always reports `now`.
    public init(_ now: Date) { self.now = now }

    /// Creates a clock that always reports the given Unix time.
    public init(unixTime: Int64) { self.now = Date(timeIntervalSince1970: TimeInterval(unixTime)) }
}

extension WallClock where Self == SystemWallClock {
    /// The system's real time.
    public static var system: SystemWallClock { SystemWallClock() }
}
