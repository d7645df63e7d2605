// Strongroom — SPDX-License-Identifier: Apache-2.0

public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

/// An encrypted access key with what is needed to open it offline (e3db-swift's `EAKInfo`): the EAK, the
/// client that sealed it, and the record writer's signing key for verifying documents.
///
/// It is `Codable` in the JSON shape e3db-swift and the JS SDK use (nested key objects), so it can be kept with
/// data that is encrypted and decrypted without the network.
public struct EAKInfo: Codable, Sendable, Hashable {
    /// The sealed access key, `ciphertext.nonce` in base64url.
    public var eak: String
    /// The client that sealed it.
    public var authorizerID: UUID
    /// That client's encryption public key (base64url X25519).
    public var authorizerPublicKey: String
    /// The record writer, whose signatures documents carry.
    public var signerID: UUID?
    /// The writer's signing public key (base64url Ed25519); needed to decrypt documents.
    public var signerSigningKey: String?
    /// The post-quantum wrap of the key (Strongroom's; absent from e3db-swift's form): what opens it when the type
    /// keeps no classical EAK (``PostQuantumPolicy/Mode/require``).
    public var hybridEAK: String?
    /// The key's generation, which the post-quantum wrap binds.
    public var generation: Int?

    enum CodingKeys: String, CodingKey {
        case eak
        case authorizerID = "authorizer_id"
        case authorizerPublicKey = "authorizer_public_key"
        case signerID = "signer_id"
        case signerSigningKey = "signer_signing_key"
        case hybridEAK = "hybrid_eak"
        case generation
    }

    private struct Curve25519Key: Codable { var curve25519: String }
    private struct Ed25519Key: Codable { var ed25519: String }

    /// Creates EAK information.
    public init(
        eak: String,
        authorizerID: UUID,
        authorizerPublicKey: String,
        signerID: UUID?,
        signerSigningKey: String?
    ) {
        self.eak = eak
        self.authorizerID = authorizerID
        self.authorizerPublicKey = authorizerPublicKey
        self.signerID = signerID
        self.signerSigningKey = signerSigningKey
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        eak = try container.decode(String.self, forKey: .eak)
        authorizerID = try container.decode(UUID.self, forKey: .authorizerID)
        authorizerPublicKey = try container.decode(Curve25519Key.self, forKey: .authorizerPublicKey).curve25519
        signerID = try container.decodeIfPresent(UUID.self, forKey: .signerID)
        signerSigningKey = try container.decodeIfPresent(Ed25519Key.self, forKey: .signerSigningKey)?.ed25519
        hybridEAK = try container.decodeIfPresent(String.self, forKey: .hybridEAK)
        generation = try container.decodeIfPresent(Int.self, forKey: .generation)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(eak, forKey: .eak)
        try container.encode(ClientID(authorizerID).description, forKey: .authorizerID)
        try container.encode(Curve25519Key(curve25519: authorizerPublicKey), forKey: .authorizerPublicKey)
        try container.encodeIfPresent(signerID.map { ClientID($0).description }, forKey: .signerID)
        try container.encodeIfPresent(signerSigningKey.map { Ed25519Key(ed25519: $0) }, forKey: .signerSigningKey)
        try container.encodeIfPresent(hybridEAK, forKey: .hybridEAK)
        try container.encodeIfPresent(generation, forKey: .generation)
    }

    init(_ wire: AccessKeyResponse, generation: Int? = nil) throws(ClientError) {
        guard let authorizerPublicKey = wire.authorizerPublicKey.curve25519 else {
            throw ClientError(.invalidResponse, "the access key has no curve25519 authorizer key")
        }
        self.init(
            eak: wire.eak,
            authorizerID: try uuid(wire.authorizerID),
            authorizerPublicKey: authorizerPublicKey,
            signerID: try wire.signerID.map { id throws(ClientError) in try uuid(id) },
            signerSigningKey: wire.signerSigningKey?.ed25519
        )
        hybridEAK = wire.hybridEAK
        self.generation = generation
    }

    var wire: AccessKeyResponse {
        AccessKeyResponse(
            eak: eak,
            hybridEAK: hybridEAK,
            authorizerID: ClientID(authorizerID).description,
            authorizerPublicKey: .init(curve25519: authorizerPublicKey),
            signerID: signerID.map { ClientID($0).description },
            signerSigningKey: signerSigningKey.map { .init(ed25519: $0) }
        )
    }
}

/// A record encrypted and signed offline (e3db-swift's `EncryptedDocument`).
public struct EncryptedDocument: Codable, Sendable, Hashable {
    /// The writer, user, type and plain metadata.
    public struct ClientMeta: Codable, Sendable, Hashable {
        /// The writer.
        public var writerID: UUID
        /// The user.
        public var userID: UUID
        /// The record type.
        public var type: String
        /// Plaintext metadata.
        public var plain: [String: String]

        enum CodingKeys: String, CodingKey {
            case writerID = "writer_id"
            case userID = "user_id"
            case type
            case plain
        }
        /// Creates metadata.
        public init(writerID: UUID, userID: UUID, type: String, plain: [String: String]) {
            self.writerID = writerID
            self.userID = userID
            self.type = type
            self.plain = plain
        }

        /// IDs are written in lowercase, as every E3DB SDK writes them.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ClientID(writerID).description, forKey: .writerID)
            try container.encode(ClientID(userID).description, forKey: .userID)
            try container.encode(type, forKey: .type)
            try container.encode(plain, forKey: .plain)
        }
    }

    /// The document's metadata.
    public var meta: ClientMeta
    /// The encrypted fields (`EDK.EDKN.EF.EFN`).
    public var data: [String: String]
    /// The writer's Ed25519 signature over meta and plaintext (base64url).
    public var recordSignature: String

    enum CodingKeys: String, CodingKey {
        case meta
        case data
        case recordSignature = "rec_sig"
    }
}

/// An encrypted document is signable as e3db-swift serializes it: `{"data":{…},"meta":{…},"rec_sig":"…"}`, keys
/// sorted, so `sign(document: encrypted)` countersigns the ciphertext and its record signature.
extension EncryptedDocument: Signable {
    public var signableComponents: [SignableValue] {
        [
            .object([
                "meta": .object([
                    "plain": .object(meta.plain.mapValues(SignableValue.string)),
                    "type": .string(meta.type),
                    "user_id": .string(ClientID(meta.userID).description),
                    "writer_id": .string(ClientID(meta.writerID).description),
                ]),
                "data": .object(data.mapValues(SignableValue.string)),
                "rec_sig": .string(recordSignature),
            ])
        ]
    }
}
