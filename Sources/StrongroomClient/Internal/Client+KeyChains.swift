// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// The keys of a type's generations older than a key, newest first, as far back as the server's links reach.
struct OlderKeys: Sendable {
    var keys: [AccessKey] = []
    /// Whether `keys` reach generation 1 (true, with no keys, for a type never rotated).
    var reachesFirst = false
    /// Whether the server answered the links route at all (a server without rotation answers 404).
    var linksServed = true
}

/// The keys of a type's older generations, for records that stay under the generation they were written in: a
/// replicated type's revisions (immutable, never re-wrapped) and files (whose sealed key is inside the uploaded
/// body). The server keeps each generation's link — the previous key sealed under it — and serves them to the
/// writer and the type's EAK holders (`GET …/links`); whoever holds the newest key opens the rest, one link at a
/// time. A revoked reader, holding only older keys, opens none of the newer links.
extension Client {
    /// The most generations walked below a key (64 links a request: at most 65 requests).
    static let maximumOlderGenerations = 4_096

    /// The keys of `(writer, user, type)` below `key`, newest first, as far back as the links reach. Empty (and
    /// reaching the first) for a type never rotated; empty (and not reaching it) when the server has no links for
    /// this client (a server without rotation, or one that withholds them). A complete chain is fetched once per key
    /// and cached.
    func olderKeys(
        below key: AccessKey,
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError) -> OlderKeys {
        if let cached = await accessKeys.olderKeys(below: key, writerID: writerID, userID: userID, type: type) {
            return cached
        }
        let chain = try await fetchOlderKeys(below: key, writerID: writerID, userID: userID, type: type)
        // Only a chain that cannot grow is kept: a cut one (a link withheld, a network failure) is asked again.
        if chain.reachesFirst || !chain.linksServed {
            await accessKeys.storeOlderKeys(chain, below: key, writerID: writerID, userID: userID, type: type)
        }
        return chain
    }

    /// The first generation's key of `(writer, user, type)`, from `key` (of generation `generation`, when the
    /// server named it) through the links. A server that names no generation and has no links route (one built
    /// before rotation) has only the one generation.
    ///
    /// - Throws: ``ClientError/Code/keyWithheld`` when the links do not reach generation 1 (the server withholds
    ///   one, or serves one that does not open).
    func firstGenerationKey(
        from key: AccessKey,
        generation: Int?,
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError) -> AccessKey {
        if generation == 1 { return key }
        let chain = try await olderKeys(below: key, writerID: writerID, userID: userID, type: type)
        guard chain.reachesFirst || (generation == nil && !chain.linksServed) else {
            throw ClientError(
                .keyWithheld,
                "the server did not serve every link between the key generations of type \(type): the first "
                    + "generation's key cannot be reached"
            )
        }
        return chain.keys.last ?? key
    }

    private func fetchOlderKeys(
        below key: AccessKey,
        writerID: String,
        userID: String,
        type: String
    ) async throws(ClientError) -> OlderKeys {
        let path = E3DBPath.accessKeyLinks.render(writerID, userID, type)
        var (keys, current) = ([AccessKey](), key)
        // The generation of the next link to open: unknown until a link opens under `key`.
        var next: Int?
        var below: Int?
        for _ in 0...(Self.maximumOlderGenerations / AccessKeyLinksResponse.maximumLinks) {
            let page: AccessKeyLinksResponse
            do {
                page = try await authenticated(
                    .GET,
                    path + (below.map { "?below=\($0)" } ?? ""),
                    success: [200],
                    as: AccessKeyLinksResponse.self
                )
            } catch  where error.code == .notFound {
                return OlderKeys(keys: keys, linksServed: false)
            }
            guard page.links.count <= AccessKeyLinksResponse.maximumLinks else {
                throw ClientError(.invalidResponse, "the server sent more key links than it may")
            }
            if below == nil, page.generation == 1, page.links.isEmpty { return OlderKeys(reachesFirst: true) }
            for link in page.links {
                guard link.generation >= 2, link.generation < below ?? Int.max else {
                    throw ClientError(.invalidResponse, "the server sent a key link out of the range asked for")
                }
                if let expected = next, link.generation != expected { return OlderKeys(keys: keys) }  // a gap
                guard let sealed = try? EncryptedAccessKey(wireFormat: link.previous),
                    let previous = try? current.openLink(sealed)
                else {
                    if next == nil { continue }  // newer than `key`: looking for the one `key` opens
                    return OlderKeys(keys: keys)
                }
                keys.append(previous)
                current = previous
                next = link.generation - 1
                if link.generation == 2 { return OlderKeys(keys: keys, reachesFirst: true) }
                if keys.count >= Self.maximumOlderGenerations { return OlderKeys(keys: keys) }
            }
            guard page.links.count == AccessKeyLinksResponse.maximumLinks, let last = page.links.last else {
                return OlderKeys(keys: keys)
            }
            below = last.generation
        }
        return OlderKeys(keys: keys)
    }
}
