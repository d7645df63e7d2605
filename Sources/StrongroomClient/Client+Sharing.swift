// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Lets `readerID` read this client's records of `type`, present and future: seals the type's access key to
    /// the reader and allows reading.
    ///
    /// - Throws: ``ClientError/Code/notFound`` for an unknown reader, ``ClientError/Code/tampered`` when the
    ///   reader's public key is malformed.
    public func share(type: String, readerID: UUID) async throws(ClientError) {
        let reader = readerID.uuidString.lowercased()
        let key = try await writerKey(type: type)
        let info = try await authenticated(.GET, "/v1/storage/clients/\(reader)", success: [200], as: ClientInfo.self)
        let readerKey: EncryptionPublicKey
        do {
            readerKey = try EncryptionPublicKey(base64URLEncoded: info.publicKey.curve25519 ?? "")
        } catch {
            throw ClientError(.tampered, "the reader's public key from the server is malformed", underlying: error)
        }
        let eak = key.sealed(to: readerKey, by: configuration.keys.encryptionKey)
        do {
            try await authenticated(
                .PUT,
                "/v1/storage/access_keys/\(clientID)/\(clientID)/\(reader)/\(segment(type))",
                body: AccessKeyPutRequest(eak: eak.wireFormat),
                success: [201]
            )
        } catch  where error.code == .conflict {
            // Shared before: the reader already holds the key.
        }
        try await authenticated(
            .PUT,
            "/v1/storage/policy/\(clientID)/\(clientID)/\(reader)/\(segment(type))",
            body: PolicyRequest(allow: [.init(read: [:])]),
            success: [200, 201]
        )
    }

    /// Stops `readerID` reading this client's records of `type`: denies reading, then deletes the reader's key.
    /// The server refuses the reader at once, whatever it cached.
    public func revoke(type: String, readerID: UUID) async throws(ClientError) {
        let reader = readerID.uuidString.lowercased()
        try await authenticated(
            .PUT,
            "/v1/storage/policy/\(clientID)/\(clientID)/\(reader)/\(segment(type))",
            body: PolicyRequest(deny: [.init(read: [:])]),
            success: [200, 201]
        )
        try await authenticated(
            .DELETE,
            "/v1/storage/access_keys/\(clientID)/\(clientID)/\(reader)/\(segment(type))",
            success: [200, 204]
        )
    }
}
