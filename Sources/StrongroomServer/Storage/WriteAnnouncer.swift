// Strongroom — SPDX-License-Identifier: Apache-2.0
public import ServiceLifecycle

/// What another instance sharing the database wrote, as it announced it.
public enum AnnouncedWrites: Sendable, Hashable {
    /// Records of these types were committed.
    case types(Set<String>)
    /// Anything may have been written: announcements were missed (the channel was down) or too many to name.
    case unknown
}

/// Tells the other instances serving the same database which record types this one wrote, and this one what they
/// wrote, so that a long-poll (`POST /v2/sync/changes`) on any instance is woken by a write through any other
/// (PostgreSQL: `LISTEN`/`NOTIFY`, ``WriteAnnouncement`` on the wire).
///
/// An announcer runs as a service of the application: ``announce(_:)`` only queues, and `run()` (the service) sends what is
/// queued (coalesced) and delivers what arrives.
public protocol WriteAnnouncer: Service {
    /// Queues an announcement that `types` were committed through this instance; returns at once.
    func announce(_ types: Set<String>)
    /// Where other instances' announcements go; set once, before the server runs.
    func deliver(to receiver: @escaping @Sendable (AnnouncedWrites) -> Void)
}

extension ServerDatabase {
    /// None: only one instance serves this database.
    public var announcer: (any WriteAnnouncer)? { nil }
}
