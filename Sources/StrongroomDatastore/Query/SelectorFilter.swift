// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// A Cloudant Query selector as a predicate on document bodies, parsed once: what a filtered replication and a
/// channel use to decide which documents they carry (the same language and matching as ``Datastore/find(selector:fields:sort:skip:limit:)``).
public struct SelectorFilter: Sendable, Hashable {
    /// The selector as given.
    public let selector: [String: JSONValue]
    private let parsed: Selector

    /// Parses `selector`.
    ///
    /// - Throws: ``DatastoreError/Code/invalidQuery`` for a selector ``Datastore/find(selector:fields:sort:skip:limit:)``
    ///   would refuse.
    public init(_ selector: [String: JSONValue]) throws(DatastoreError) {
        self.selector = selector
        parsed = try SelectorParser.parse(selector)
    }

    /// Whether a document with this body matches.
    public func matches(_ body: [String: JSONValue]) -> Bool { SelectorMatcher.matches(parsed, body) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.selector == rhs.selector }
    public func hash(into hasher: inout Hasher) { hasher.combine(selector) }
}
