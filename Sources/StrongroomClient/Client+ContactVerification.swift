// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
public import StrongroomCrypto
import StrongroomWire

/// Whether a contact's keys are the ones its user verified (``Client/contactVerification(of:)``).
public enum ContactVerification: Sendable, Hashable {
    /// Never verified: its keys are taken on the key log's word.
    case unverified
    /// Verified, and its keys in the key log are still those.
    case verified
    /// Verified, but the key log now binds other keys to it: every key operation with it fails with
    /// ``ClientError/Code/contactKeysChanged`` until the user compares safety numbers again.
    case changed
}

extension Client {
    /// This client's half of every safety number (30 digits over its ID and its keys).
    public var safetyNumberHalf: SafetyNumber.Half {
        SafetyNumber.Half(
            clientID: configuration.clientID,
            encryptionKey: configuration.keys.encryptionKey.publicKey,
            signingKey: configuration.keys.signingKey.publicKey
        )
    }

    /// The safety number of this client and `clientID` (see the article "Verifying contacts"): 60 digits both users
    /// compare out of band, over both clients' keys as the key log binds them. The contact's keys are proven by the
    /// key log, and computed even when they changed since it was verified, so the users can compare again.
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when key log verification is off
    ///   (``KeyLogVerification/trustingTheServer()``); the key log's verdicts when the contact's keys are not proven.
    public func safetyNumber(with clientID: UUID) async throws(ClientError) -> SafetyNumber {
        SafetyNumber(safetyNumberHalf, try await provenHalf(of: clientID))
    }

    /// Marks `clientID` verified once its user read the same `safetyNumber` as ``safetyNumber(with:)`` shows (digits,
    /// spaces and dashes allowed): kept with the key log state (``KeyLogVerification/state``), so from now on a
    /// change of the contact's keys fails every key operation with it (``ClientError/Code/contactKeysChanged``)
    /// instead of being taken silently. Verifying again after a change accepts the new keys.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the numbers differ (someone's keys are not what the other sees:
    ///   nothing is marked); ``ClientError/Code/invalidConfiguration`` when key log verification is off.
    public func verifyContact(_ clientID: UUID, safetyNumber typed: String) async throws(ClientError) {
        let half = try await provenHalf(of: clientID)
        guard SafetyNumber(safetyNumberHalf, half).matches(typed) else {
            throw ClientError(
                .tampered,
                "the safety numbers differ: the keys one of you sees for the other are not the real ones; "
                    + "nothing was marked verified"
            )
        }
        try await keyLog.markVerified(ClientID(clientID).description, keys: half.digits)
    }

    /// Whether `clientID` is a verified contact whose keys are still the ones verified.
    ///
    /// - Throws: as ``safetyNumber(with:)``.
    public func contactVerification(of clientID: UUID) async throws(ClientError) -> ContactVerification {
        let half = try await provenHalf(of: clientID)
        guard let verified = try await keyLog.verifiedKeys(of: ClientID(clientID).description) else {
            return .unverified
        }
        return ConstantTime.equals(verified, half.digits) ? .verified : .changed
    }

    /// The contact's half, from its keys as the key log proves them (a verified contact's change not refused).
    private func provenHalf(of clientID: UUID) async throws(ClientError) -> SafetyNumber.Half {
        guard configuration.keyLog.isEnabled else {
            throw ClientError(
                .invalidConfiguration,
                "safety numbers need key log verification: the server's word alone proves no key"
            )
        }
        let info = try await publicInfo(of: clientID, checkingContact: false)
        return SafetyNumber.Half(clientID: clientID, encryptionKey: info.publicKey, signingKey: info.signingKey)
    }
}
