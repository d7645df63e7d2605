// Strongroom — SPDX-License-Identifier: Apache-2.0

/// `GET /v2/keylog/checkpoint`: the log's newest checkpoint.
public struct KeyLogCheckpointResponse: Codable, Sendable, Hashable {
    /// A C2SP signed note whose text is a `tlog-checkpoint` (origin, size, base64 root, then `timestamp <unix
    /// seconds>`), signed by the log's Ed25519 key.
    public var checkpoint: String
    /// The key the log signs with, in the signed-note verifier-key form (`name+keyid+base64`). A client that has not
    /// pinned the log's key learns it here on first use; after that it holds on to the one it pinned.
    public var verifierKey: String
    /// The witnesses the server asks to cosign its checkpoints, as cosigner keys (`name+keyid+base64`); absent when
    /// it has none. A Strongroom client pins them on first use, like the log's key, and then requires one cosignature.
    public var witnesses: [String]?

    /// The most witnesses an answer names.
    public static let maximumWitnesses = 16

    enum CodingKeys: String, CodingKey {
        case checkpoint
        case verifierKey = "verifier_key"
        case witnesses
    }

    /// Creates an answer.
    public init(checkpoint: String, verifierKey: String, witnesses: [String]? = nil) {
        self.checkpoint = checkpoint
        self.verifierKey = verifierKey
        self.witnesses = witnesses
    }
}

/// `GET /v2/keylog/proof/inclusion` and `…/consistency`: an RFC 9162 proof.
public struct KeyLogProofResponse: Codable, Sendable, Hashable {
    /// The proof's hashes, standard base64 of 32 bytes each, in RFC 9162 order.
    public var proof: [String]

    /// Creates an answer.
    public init(proof: [String]) { self.proof = proof }
}

/// One leaf of the key log.
public struct KeyLogLeaf: Codable, Sendable, Hashable {
    /// Its index, from 0.
    public var index: UInt64
    /// The leaf's bytes (a key log entry), standard base64.
    public var entry: String
    /// Its inclusion proof against the checkpoint of the answer, when the answer carries one.
    public var proof: [String]?
    /// For a key change in a client's key history, the signatures of its old and new keys.
    public var keyChange: KeyChangeSignatures?

    enum CodingKeys: String, CodingKey {
        case index, entry, proof
        case keyChange = "key_change"
    }

    /// Creates a leaf.
    public init(index: UInt64, entry: String, proof: [String]? = nil, keyChange: KeyChangeSignatures? = nil) {
        self.index = index
        self.entry = entry
        self.proof = proof
        self.keyChange = keyChange
    }
}

/// `GET /v2/keylog/leaves`: leaves by range, for monitors.
public struct KeyLogLeavesResponse: Codable, Sendable, Hashable {
    /// The leaves from `start`, in order (at most `count`, fewer at the log's end).
    public var leaves: [KeyLogLeaf]

    /// Creates an answer.
    public init(leaves: [KeyLogLeaf]) { self.leaves = leaves }
}

/// `GET /v2/keylog/clients/{id}`: a client's key history, each leaf with its proof against `checkpoint`.
public struct KeyLogHistoryResponse: Codable, Sendable, Hashable {
    /// The checkpoint the proofs are against (a signed note).
    public var checkpoint: String
    /// The client's key leaves (its registration, then every key change), in order.
    public var leaves: [KeyLogLeaf]

    /// Creates an answer.
    public init(checkpoint: String, leaves: [KeyLogLeaf]) {
        self.checkpoint = checkpoint
        self.leaves = leaves
    }
}

/// One commitment leaf with what it commits to, for one of its parties.
public struct KeyLogCommitmentLeaf: Codable, Sendable, Hashable {
    /// The leaf, with its proof against the answer's checkpoint.
    public var leaf: KeyLogLeaf
    /// The commitment's salt, standard base64 of 32 bytes.
    public var salt: String
    /// The writer (the leaf's client).
    public var writerID: String
    /// An access grant's user, nil for an authorizer grant's.
    public var userID: String?
    /// The reader of an access grant, the authorizer of an authorizer grant.
    public var partyID: String
    /// The record type.
    public var type: String

    enum CodingKeys: String, CodingKey {
        case leaf, salt, type
        case writerID = "writer_id"
        case userID = "user_id"
        case partyID = "party_id"
    }

    /// Creates an opened commitment.
    public init(leaf: KeyLogLeaf, salt: String, writerID: String, userID: String?, partyID: String, type: String) {
        self.leaf = leaf
        self.salt = salt
        self.writerID = writerID
        self.userID = userID
        self.partyID = partyID
        self.type = type
    }
}

/// `GET /v2/keylog/commitments`: the caller's commitments (as writer or as the other party), opened.
public struct KeyLogCommitmentsResponse: Codable, Sendable, Hashable {
    /// The checkpoint the proofs are against (a signed note).
    public var checkpoint: String
    /// The commitments after `after`, in order.
    public var commitments: [KeyLogCommitmentLeaf]

    /// Creates an answer.
    public init(checkpoint: String, commitments: [KeyLogCommitmentLeaf]) {
        self.checkpoint = checkpoint
        self.commitments = commitments
    }
}

/// The `keylog` field of a client lookup: the client's newest key leaf with its inclusion proof against a
/// checkpoint. The official SDKs ignore it.
public struct KeyLogInclusion: Codable, Sendable, Hashable {
    /// The leaf's index.
    public var index: UInt64
    /// The leaf's bytes, standard base64.
    public var entry: String
    /// The checkpoint the proof is against (a signed note).
    public var checkpoint: String
    /// The inclusion proof, standard base64 hashes.
    public var proof: [String]
    /// The size the caller said it holds (`?keylog_since=`), when the answer proves the checkpoint extends it.
    public var since: UInt64?
    /// The consistency proof from `since` to the checkpoint's size, standard base64 hashes.
    public var consistency: [String]?

    /// Creates the field.
    public init(
        index: UInt64,
        entry: String,
        checkpoint: String,
        proof: [String],
        since: UInt64? = nil,
        consistency: [String]? = nil
    ) {
        self.index = index
        self.entry = entry
        self.checkpoint = checkpoint
        self.proof = proof
        self.since = since
        self.consistency = consistency
    }
}

/// `GET /v2/keylog/generations/{writer}/{user}/{type}`: the leaves logging the type's access-key generations
/// (`KeyGenerationLeaf`, kind 7), newest first, each with its proof against the checkpoint; empty for a type never
/// rotated. Only the writer and the clients holding an EAK of the type may ask.
public struct KeyGenerationLeavesResponse: Codable, Sendable, Hashable {
    /// The most leaves an answer carries.
    public static let maximumLeaves = 1_000

    /// The checkpoint the proofs are against (a signed note).
    public var checkpoint: String
    /// The leaves, newest first, at most 1,000.
    public var leaves: [KeyLogLeaf]

    /// Creates an answer.
    public init(checkpoint: String, leaves: [KeyLogLeaf]) {
        self.checkpoint = checkpoint
        self.leaves = leaves
    }
}
