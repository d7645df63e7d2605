// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One leaf of a Strongroom key log, in its fixed binary layout (version 1; integers big-endian, no JSON):
///
/// | bytes | field |
/// | --- | --- |
/// | 1 | version, `0x01` |
/// | 1 | kind (``Kind``) |
/// | 8 | time, microseconds since the Unix epoch (at most 2⁶³ − 1) |
/// | 16 | the client the entry is about (its ID's 16 bytes); for a commitment, ``unnamed`` (all zeros); for ``Kind/keyRotated``, the superseded key's successor tag (``KeyGenerationLeaf``); for ``Kind/hybridKeyPublished``, the client |
/// | 72 | for ``Kind/registered`` and ``Kind/keysChanged``: the X25519 encryption key (32), the Ed25519 signing key (32; all zeros when the client registered none, as the official SDKs allow), and the index of the client's previous key leaf (8; all ones for none) |
/// | 32 | for the other kinds: a ``KeyLogCommitment`` (for ``Kind/hybridKeyPublished``, SHA-256 of the X-Wing key) |
///
/// A registration names no previous leaf and a key change must, so each client's keys form a chain inside the log.
/// Grants and revocations are logged only as salted commitments — the writer too is inside the commitment, and the
/// entry names ``unnamed`` in its place — so the log proves them to whoever holds the salt without publishing who
/// shares with whom. (Logs written before the writer was committed name it in clear; decoding accepts either.) Decoding takes exactly one of the two lengths (98 or 58 bytes) and
/// refuses anything else with ``CryptoError/Code/invalidFormat``.
public struct KeyLogEntry: Sendable, Hashable {
    /// What an entry records.
    public enum Kind: UInt8, Sendable, CaseIterable {
        /// A client registered with these keys.
        case registered = 1
        /// A client's keys changed to these.
        case keysChanged = 2
        /// An access key was shared (a commitment to writer, user, reader and type).
        case accessGranted = 3
        /// An access key was unshared.
        case accessRevoked = 4
        /// An authorizer was granted the right to share on a writer's behalf.
        case authorizerGranted = 5
        /// That right was withdrawn.
        case authorizerRevoked = 6
        /// An access key was rotated to a new generation (``KeyGenerationLeaf``): the entry's ID field is the
        /// superseded key's successor tag, not a client, and the commitment is to the new key.
        case keyRotated = 7
        /// A client published a post-quantum (X-Wing) key (``HybridKeyLeaf``): the commitment is the key's SHA-256.
        case hybridKeyPublished = 8

        /// Whether entries of this kind carry keys (else a commitment).
        public var carriesKeys: Bool { self == .registered || self == .keysChanged }
    }

    /// A client's public keys as an entry binds them.
    public struct Keys: Sendable, Hashable {
        /// The X25519 key others encrypt access keys to.
        public var encryption: EncryptionPublicKey
        /// The Ed25519 key its signatures verify under; nil when the client registered none.
        public var signing: SigningPublicKey?
        /// The index of this client's previous key leaf, nil for a registration.
        public var previous: UInt64?

        /// Keys, chained to `previous`.
        public init(encryption: EncryptionPublicKey, signing: SigningPublicKey?, previous: UInt64?) {
            self.encryption = encryption
            self.signing = signing
            self.previous = previous
        }
    }

    /// The layout version this build writes and reads.
    public static let version: UInt8 = 1
    /// The length of an entry that carries keys.
    public static let keysLength = 26 + 72
    /// The length of an entry that carries a commitment.
    public static let commitmentLength = 26 + 32

    /// What the entry records.
    public let kind: Kind
    /// When, in microseconds since the Unix epoch.
    public let time: UInt64
    /// The client it is about: the key owner, or for a commitment ``unnamed`` (a log written before the writer was
    /// committed names the writer who shared).
    public let clientID: UUID

    /// The all-zero ID a commitment entry carries in place of its writer, who is inside the commitment.
    public static let unnamed = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    /// The keys, for ``Kind/registered`` and ``Kind/keysChanged``.
    public let keys: Keys?
    /// The commitment, for the other kinds.
    public let commitment: KeyLogCommitment?

    /// An entry binding `keys` to `clientID`.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` when a registration names a previous leaf or a key change
    ///   does not, or `time` is past 2⁶³ − 1.
    public init(keysOf clientID: UUID, _ keys: Keys, registration: Bool, time: UInt64) throws(CryptoError) {
        guard registration == (keys.previous == nil) else {
            throw CryptoError(.invalidParameters, "a registration has no previous key leaf and a key change has one")
        }
        guard time <= UInt64(Int64.max), keys.previous.map({ $0 < UInt64.max }) ?? true else {
            throw CryptoError(.invalidParameters, "a key log entry's time and indexes are below 2⁶³")
        }
        (self.kind, self.time, self.clientID) = (registration ? .registered : .keysChanged, time, clientID)
        (self.keys, self.commitment) = (keys, nil)
    }

    /// An entry recording `commitment` of `kind` (a grant or a revocation), naming nobody in clear: the writer is
    /// inside the commitment.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a kind that carries keys, or a time past 2⁶³ − 1.
    public init(_ kind: Kind, commitment: KeyLogCommitment, time: UInt64) throws(CryptoError) {
        try self.init(kind, by: Self.unnamed, commitment: commitment, time: time)
    }

    /// An entry recording `commitment` of `kind` by `clientID` in clear, as logs did before the writer was committed
    /// (known-answer vectors and old logs; new entries use ``init(_:commitment:time:)``), or, for
    /// ``Kind/keyRotated``, with a successor tag in place of the client (``KeyGenerationLeaf/entry(time:)``).
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a kind that carries keys, or a time past 2⁶³ − 1.
    public init(_ kind: Kind, by clientID: UUID, commitment: KeyLogCommitment, time: UInt64) throws(CryptoError) {
        guard !kind.carriesKeys, time <= UInt64(Int64.max) else {
            throw CryptoError(
                .invalidParameters,
                "a commitment entry is a grant, revocation or rotation, at a time below 2⁶³"
            )
        }
        (self.kind, self.time, self.clientID) = (kind, time, clientID)
        (self.keys, self.commitment) = (nil, commitment)
    }

    /// Decodes an entry.
    ///
    /// - Throws: ``CryptoError/Code/unsupportedVersion`` for another version, ``CryptoError/Code/invalidFormat`` for
    ///   an unknown kind, a length that is not the kind's, a time past 2⁶³ − 1, a registration with a previous leaf
    ///   or a key change without one, or a key that is not a valid point or is of small order.
    public init(decoding encoded: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(encoded.prefix(Self.keysLength + 1))
        guard bytes.count >= 2 else { throw CryptoError(.invalidFormat, "a key log entry is 58 or 98 bytes") }
        guard bytes[0] == Self.version else {
            throw CryptoError(.unsupportedVersion, "key log entry version \(bytes[0]) is not known")
        }
        guard let kind = Kind(rawValue: bytes[1]) else {
            throw CryptoError(.invalidFormat, "key log entry kind \(bytes[1]) is not known")
        }
        guard bytes.count == (kind.carriesKeys ? Self.keysLength : Self.commitmentLength) else {
            throw CryptoError(.invalidFormat, "a key log entry of that kind is \(kind.carriesKeys ? 98 : 58) bytes")
        }
        let time = Self.integer(bytes[2..<10])
        let clientID = bytes[10..<26].withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        if kind.carriesKeys {
            let encryption: EncryptionPublicKey
            let signing: SigningPublicKey?
            do {
                encryption = try EncryptionPublicKey(rawRepresentation: bytes[26..<58])
                // All zeros: no signing key (the zero point is of small order, so never a real key).
                signing =
                    bytes[58..<90].allSatisfy { $0 == 0 }
                    ? nil : try SigningPublicKey(rawRepresentation: bytes[58..<90])
            } catch {
                throw CryptoError(.invalidFormat, "a key log entry's keys are not valid", underlying: error)
            }
            // A key of small order could never have come from a real key pair (and every secret agreed with it
            // would be a constant): such an entry is refused as malformed.
            guard encryption.isUsableForKeyAgreement, signing?.isValidPoint ?? true else {
                throw CryptoError(.invalidFormat, "a key log entry's keys are points of small order")
            }
            let previous = Self.integer(bytes[90..<98])
            do {
                try self.init(
                    keysOf: clientID,
                    Keys(encryption: encryption, signing: signing, previous: previous == UInt64.max ? nil : previous),
                    registration: kind == .registered,
                    time: time
                )
            } catch {
                throw CryptoError(.invalidFormat, "a key log entry's fields do not fit its kind", underlying: error)
            }
        } else {
            do {
                try self.init(kind, by: clientID, commitment: KeyLogCommitment(exactly: bytes[26..<58]), time: time)
            } catch {
                throw CryptoError(.invalidFormat, "a key log entry's time is past 2⁶³ − 1", underlying: error)
            }
        }
    }

    /// The fixed binary layout.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = [Self.version, kind.rawValue]
        bytes.reserveCapacity(Self.keysLength)
        bytes += Self.bigEndian(time)
        bytes += withUnsafeBytes(of: clientID.uuid) { Array($0) }
        if let keys {
            bytes += keys.encryption.rawRepresentation
            bytes += keys.signing.map { Array($0.rawRepresentation) } ?? [UInt8](repeating: 0, count: 32)
            bytes += Self.bigEndian(keys.previous ?? UInt64.max)
        } else if let commitment {
            bytes += commitment.bytes
        }
        return bytes
    }

    /// The entry's leaf hash in the log.
    public var leafHash: MerkleHash { .leaf(encoded) }

    static func bigEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
}

/// A salted commitment to a sharing fact, as a key log entry records it: SHA-256 of the domain
/// `strongroom/keylog/commitment/v1`, a zero byte, the entry's kind, the 32-byte salt and the fact's fields (client
/// IDs' 16 bytes each, then the record type's UTF-8 length as two big-endian bytes and its bytes). Without the salt
/// nobody can test a guess of who shares what with whom; with it, either party can show the log holds the fact.
public struct KeyLogCommitment: Sendable, Hashable {
    /// The 32 bytes.
    public let bytes: [UInt8]

    /// The domain every commitment hashes first.
    static let domain = Array("strongroom/keylog/commitment/v1".utf8) + [0]

    /// A commitment from its 32 bytes; nil for another length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.bytes = Array(bytes)
    }

    /// A commitment from bytes known to be 32.
    init(exactly bytes: some Collection<UInt8>) { self.bytes = Array(bytes) }

    /// The commitment to `writer`'s access key for `user`'s records of `type` being shared with (or unshared from)
    /// `reader`.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a salt that is not 32 bytes, a type longer than 1,024
    ///   bytes, or a kind that is not an access grant or revocation.
    public static func access(
        _ kind: KeyLogEntry.Kind,
        writer: UUID,
        user: UUID,
        reader: UUID,
        type: String,
        salt: some Collection<UInt8>
    ) throws(CryptoError) -> KeyLogCommitment {
        guard kind == .accessGranted || kind == .accessRevoked else {
            throw CryptoError(.invalidParameters, "an access commitment is a grant or a revocation")
        }
        return try commit(kind, ids: [writer, user, reader], type: type, salt: salt)
    }

    /// The commitment to `authorizer` being allowed (or no longer allowed) to share `writer`'s records of `type`.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` as for ``access(_:writer:user:reader:type:salt:)``.
    public static func authorizer(
        _ kind: KeyLogEntry.Kind,
        writer: UUID,
        authorizer: UUID,
        type: String,
        salt: some Collection<UInt8>
    ) throws(CryptoError) -> KeyLogCommitment {
        guard kind == .authorizerGranted || kind == .authorizerRevoked else {
            throw CryptoError(.invalidParameters, "an authorizer commitment is a grant or a revocation")
        }
        return try commit(kind, ids: [writer, authorizer], type: type, salt: salt)
    }

    private static func commit(
        _ kind: KeyLogEntry.Kind,
        ids: [UUID],
        type: String,
        salt: some Collection<UInt8>
    ) throws(CryptoError) -> KeyLogCommitment {
        let typeBytes = Array(type.utf8)
        guard salt.count == 32, typeBytes.count <= 1_024 else {
            throw CryptoError(.invalidParameters, "a commitment takes a 32-byte salt and a type of at most 1,024 bytes")
        }
        var message = domain + [kind.rawValue] + Array(salt)
        for id in ids { message += withUnsafeBytes(of: id.uuid) { Array($0) } }
        message += [UInt8(typeBytes.count >> 8), UInt8(typeBytes.count & 0xFF)] + typeBytes
        var digest = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256(&digest, message, UInt64(message.count))
        return KeyLogCommitment(exactly: digest)
    }
}
