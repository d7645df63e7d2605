// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// One path of the E3DB API, written once: the SDK renders its requests from it (``render(_:)``) and the server
/// registers its route with the same template (``template``), so the two cannot drift apart.
///
/// A template is a sequence of `/`-separated segments; a segment starting with `:` is a parameter
/// (`/v1/storage/records/:id`), the syntax Hummingbird's router matches.
public struct E3DBPath: Sendable, Hashable, CustomStringConvertible {
    /// The route template, `:name` for each parameter.
    public let template: String
    /// The template's segments, split once (every request renders from them).
    private let segments: [Substring]

    /// A path from its template.
    public init(_ template: StaticString) {
        self.template = template.description
        segments = self.template.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// The parameters' names, in order.
    public var parameters: [String] { segments.filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) } }

    /// The request path: each parameter replaced, in order, by a value percent-encoded as one path segment (a `/`,
    /// `?` or `#` in a value cannot change the path's shape).
    ///
    /// - Precondition: as many values as ``parameters`` (a mismatch is a programming error of the caller, not
    ///   input: every call site names its path and passes literal arguments).
    public func render(_ values: String...) -> String {
        var remaining = values[...]
        let path = segments.map { segment -> String in
            guard segment.hasPrefix(":") else { return String(segment) }
            guard let value = remaining.popFirst() else { preconditionFailure("\(template): too few values") }
            return Self.encodeSegment(value)
        }
        precondition(remaining.isEmpty, "\(template): too many values")
        return path.joined(separator: "/")
    }

    public var description: String { template }

    /// `value` percent-encoded as one path segment.
    public static func encodeSegment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? value
    }

    private static let segmentAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return allowed
    }()
}

extension E3DBPath {
    // MARK: Accounts and tokens

    /// `POST`: register a client with a registration token.
    public static let register = E3DBPath("/v1/account/e3db/clients/register")
    /// `POST`: exchange API credentials for a bearer token.
    public static let token = E3DBPath("/v1/auth/token")
    /// `POST`: a client's credential backup (the Go SDK's), for a registration token.
    public static let backup = E3DBPath("/v1/account/backup/:token/:client")
    /// `GET`: a client's public keys.
    public static let client = E3DBPath("/v1/storage/clients/:id")

    // MARK: Records, files and search

    /// `POST`: write a record.
    public static let records = E3DBPath("/v1/storage/records")
    /// `GET`: read a record; `DELETE`: delete it whatever its version.
    public static let record = E3DBPath("/v1/storage/records/:id")
    /// `PUT`: update a record at a version; `DELETE`: delete it at a version.
    public static let recordVersion = E3DBPath("/v1/storage/records/safe/:id/:version")
    /// `POST`: the v1 search.
    public static let search = E3DBPath("/v1/storage/search")
    /// `POST`: the v2 search.
    public static let searchV2 = E3DBPath("/v2/search")
    /// `POST`: start a file upload.
    public static let files = E3DBPath("/v1/storage/files")
    /// `PATCH`: commit an uploaded file; `GET`: a file record with its download URL.
    public static let file = E3DBPath("/v1/storage/files/:id")
    /// `PUT` and `GET` through a presigned URL: a file body.
    public static let blob = E3DBPath("/v1/storage/blobs/:id")
    /// `GET`/`PUT /v2/storage/files/{id}/key`: a file's sealed key (``FileKeyResponse``), re-wrapped by the writer
    /// after a rotation (``FileKeyRewrapRequest``).
    public static let fileKey = E3DBPath("/v2/storage/files/:id/key")

    // MARK: Sharing

    /// `GET`, `PUT`, `DELETE`: the access key of a (writer, user, reader, type) slot.
    public static let accessKey = E3DBPath("/v1/storage/access_keys/:writer/:user/:reader/:type")
    /// `GET /v2/storage/access_keys/{writer}/{user}/{type}`: a type's key generation and the readers holding its
    /// key (the writer only).
    public static let accessKeyGeneration = E3DBPath("/v2/storage/access_keys/:writer/:user/:type")
    /// `POST /v2/storage/access_keys/{writer}/{user}/{type}/rotate`: a new key generation, committed at once.
    public static let accessKeyRotation = E3DBPath("/v2/storage/access_keys/:writer/:user/:type/rotate")
    /// `POST /v2/storage/access_keys/{writer}/{user}/{type}/rewrap`: a page of records re-wrapped under the current
    /// generation, in one transaction.
    public static let recordsRewrap = E3DBPath("/v2/storage/access_keys/:writer/:user/:type/rewrap")
    /// `GET /v2/storage/access_keys/{writer}/{user}/{type}/links?below=`: the links between a type's key
    /// generations (``AccessKeyLinksResponse``), for the writer and the holders of its EAKs.
    public static let accessKeyLinks = E3DBPath("/v2/storage/access_keys/:writer/:user/:type/links")
    /// `GET`: the caller's encrypted access keys as a reader, paged by `?start=` (a key change re-wraps them).
    public static let heldAccessKeys = E3DBPath("/v2/storage/access_keys/held")
    /// `POST`: a client replaces its keys (``KeyChangeRequest``).
    public static let clientKeys = E3DBPath("/v2/storage/clients/:id/keys")
    /// `PUT`: a client publishes its post-quantum key (``HybridKeyRequest``); `GET`: anyone's, proven.
    public static let clientHybridKey = E3DBPath("/v2/storage/clients/:id/hybrid_key")
    /// `POST`: the keys to seal to for many clients at once (``SealingKeysRequest``).
    public static let sealingKeys = E3DBPath("/v2/storage/clients/sealing_keys")
    /// `PUT`: a policy on a (user, writer, reader, type) slot.
    public static let policy = E3DBPath("/v1/storage/policy/:user/:writer/:reader/:type")
    /// `DELETE`: every policy of a (user, writer, reader) slot (removing an authorizer).
    public static let readerPolicies = E3DBPath("/v1/storage/policy/:user/:writer/:reader")
    /// `GET`: what the caller shares.
    public static let outgoingPolicies = E3DBPath("/v1/storage/policy/outgoing")
    /// `GET`: what is shared with the caller.
    public static let incomingPolicies = E3DBPath("/v1/storage/policy/incoming")
    /// `GET`: the caller's authorizers.
    public static let proxies = E3DBPath("/v1/storage/policy/proxies")
    /// `GET`: whom the caller is an authorizer for.
    public static let granted = E3DBPath("/v1/storage/policy/granted")

    // MARK: Notes, certificates, integrity

    /// `POST`: write a note; `GET`: read one.
    public static let notes = E3DBPath("/v2/storage/notes")
    /// `POST`: a certificate for a CSR.
    public static let enroll = E3DBPath("/v1/pki/enroll")
    /// `POST` over mutual TLS: a new certificate for the presented one.
    public static let renew = E3DBPath("/v1/pki/renew")
    /// `GET`: the CA chain.
    public static let certificateAuthority = E3DBPath("/v1/pki/ca")
    /// `GET`: the certificate revocation list.
    public static let revocationList = E3DBPath("/v1/pki/crl")
    /// `POST`: register an integrity instance's key.
    public static let integrityInstances = E3DBPath("/v1/integrity/instances")
    /// `POST`: a check-in challenge.
    public static let integrityChallenge = E3DBPath("/v1/integrity/challenge")
    /// `POST`: a signed integrity report.
    public static let integrityReports = E3DBPath("/v1/integrity/reports")
    /// `GET` (admin): integrity history.
    public static let integrityHistory = E3DBPath("/v1/admin/integrity")
    /// `POST` (admin): clear a client's integrity hold.
    public static let integrityClear = E3DBPath("/v1/admin/integrity/:client_id/clear")

    // MARK: Replication

    /// `POST`: which revision tags the server lacks.
    public static let syncRevsDiff = E3DBPath("/v2/sync/revs_diff")
    /// `POST`: store revision records, idempotently.
    public static let syncBulk = E3DBPath("/v2/sync/bulk")
    /// `POST`: delete the caller's revision records of some tags (compaction).
    public static let syncPurge = E3DBPath("/v2/sync/purge")
    /// `POST`: a long-poll for new records of a replicated datastore's type.
    public static let syncChanges = E3DBPath("/v2/sync/changes")
    /// `POST`: the owner of a replicated datastore's type sets what a member may write to it.
    public static let syncAccess = E3DBPath("/v2/sync/access")

    // MARK: Key log

    /// `GET`: the key log's newest checkpoint.
    public static let keyLogCheckpoint = E3DBPath("/v2/keylog/checkpoint")
    /// `GET ?index=&size=`: an inclusion proof.
    public static let keyLogInclusion = E3DBPath("/v2/keylog/proof/inclusion")
    /// `GET ?old=&new=`: a consistency proof.
    public static let keyLogConsistency = E3DBPath("/v2/keylog/proof/consistency")
    /// `GET ?start=&count=`: leaves by range.
    public static let keyLogLeaves = E3DBPath("/v2/keylog/leaves")
    /// `GET`: a client's key history with proofs.
    public static let keyLogClient = E3DBPath("/v2/keylog/clients/:id")
    /// `GET ?after=`: the caller's commitments, opened, with proofs.
    public static let keyLogCommitments = E3DBPath("/v2/keylog/commitments")
    /// `GET`: the generation leaves of a writer's type (``KeyGenerationLeavesResponse``), for its holders.
    public static let keyLogGenerations = E3DBPath("/v2/keylog/generations/:writer/:user/:type")

    /// Every path above (the server's route-inventory test checks that it registers exactly these).
    public static let all: [E3DBPath] = [
        .register, .token, .backup, .client, .records, .record, .recordVersion, .search, .searchV2, .files, .file,
        .blob, .fileKey, .accessKey, .accessKeyGeneration, .accessKeyRotation, .recordsRewrap, .accessKeyLinks,
        .heldAccessKeys, .clientKeys, .clientHybridKey, .sealingKeys, .policy,
        .readerPolicies,
        .outgoingPolicies, .incomingPolicies, .proxies, .granted, .notes,
        .enroll, .renew, .certificateAuthority, .revocationList, .integrityInstances, .integrityChallenge,
        .integrityReports, .integrityHistory, .integrityClear, .syncRevsDiff, .syncBulk,
        .syncPurge, .syncChanges, .syncAccess, .keyLogCheckpoint, .keyLogInclusion, .keyLogConsistency,
        .keyLogLeaves, .keyLogClient, .keyLogCommitments, .keyLogGenerations,
    ]
}
