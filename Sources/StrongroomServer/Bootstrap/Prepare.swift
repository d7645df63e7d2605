// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// Start-up work every instance may repeat safely.
func prepare(
    store: any ClientStore & KeyLogStore,
    configuration: ServerConfiguration,
    clock: ServerClock,
    logger: Logger
) async throws {
    if try await store.setting("backup_client_id") == nil {
        // The account's backup client: a real client with a public key, so SDKs that back up credentials can
        // share with it. Its private key is not kept by the server.
        let key = EncryptionPrivateKey()
        let backup = StoredClient(
            clientID: ClientID.random().description,
            name: "account backup",
            publicKey: PublicKeyObject(curve25519: key.publicKey.base64URLEncoded),
            signingKey: nil,
            apiKeyID: hex(SecureRandom.data(count: 32)),
            apiSecretHash: AccountRoutes.hash(secret: hex(SecureRandom.data(count: 32))),
            enabled: true,
            created: clock.wallTimestamp,
            registrationToken: nil
        )
        try await store.insertClient(backup)
        try await store.setSettingIfAbsent("backup_client_id", value: backup.clientID)
    }
    // Clients registered before the key log existed get their registration leaves (in the order they registered).
    var cursor: KeyLogBackfillCursor?
    repeat {
        cursor = try await store.backfillKeyLog(after: cursor, batch: 500)
    } while cursor != nil
    if let token = configuration.registrationToken {
        if token.utf8.count < 32 {
            logger.warning(
                "the preset registration token is shorter than 32 characters: it can be guessed; use `token create`"
            )
        }
        try await store.createRegistrationToken(
            StoredRegistrationToken(token: token, name: "preset", uses: 0, maximumUses: nil, enabled: true)
        )
    } else if try await store.registrationTokens().isEmpty {
        // First start: make one token so that clients can register, and show it once to the operator.
        let token = hex(SecureRandom.data(count: 32))
        try await store.createRegistrationToken(
            StoredRegistrationToken(token: token, name: "first-run", uses: 0, maximumUses: nil, enabled: true)
        )
        logger.notice(
            "created a first registration token; see `strongroom-server token list`",
            metadata: ["registration_token": .string(token)]
        )
    }
}
