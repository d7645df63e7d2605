// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomKeychain

extension ServerTrust {
    /// The keychain item of a server trust: a generic password, service `dev.strongroom.server-trust`, account =
    /// `label`.
    public static func keychainQuery(label: String) -> ItemQuery<GenericPassword> {
        var query = ItemQuery<GenericPassword>.credential(for: label, service: "dev.strongroom.server-trust")
        query.label = "Strongroom server trust \(label)"
        return query
    }

    /// Saves the roots and pins in a keychain under `label`, sealed like every keychain item, so they ship and
    /// rest encrypted and cannot be altered without the keychain's key (T.A.K's protected pins). An existing trust
    /// of that label is replaced in one step.
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when the keychain refuses (locked, for example).
    public func save(to keychain: Keychain, label: String, accessPolicy: AccessPolicy = .default) throws(ClientError) {
        let json: SecureBytes
        do {
            json = SecureBytes(copying: try jsonRepresentation())
        } catch {
            throw ClientError(error)
        }
        do {
            try keychain.store(
                json,
                query: Self.keychainQuery(label: label),
                accessPolicy: accessPolicy,
                replacing: true
            )
        } catch {
            throw ClientError(
                .invalidConfiguration,
                "the server trust was not saved: \(error.message)",
                underlying: error
            )
        }
    }

    /// The trust saved under `label` with ``save(to:label:accessPolicy:)``.
    ///
    /// - Throws: ``ClientError/Code/notFound`` when the keychain has none of that label,
    ///   ``ClientError/Code/invalidConfiguration`` when the keychain refuses or the item is not a server trust.
    public static func keychain(_ keychain: Keychain, label: String) throws(ClientError) -> ServerTrust {
        let json: SecureBytes?
        do {
            json = try keychain.retrieve(keychainQuery(label: label), as: SecureBytes.self)
        } catch {
            throw ClientError(
                .invalidConfiguration,
                "the keychain refused the server trust: \(error.message)",
                underlying: error
            )
        }
        guard let json else { throw ClientError(.notFound, "the keychain has no server trust \(label)") }
        do {
            return try ServerTrust(jsonRepresentation: json.withUnsafeBytes { Data($0) })
        } catch {
            throw ClientError(
                .invalidConfiguration,
                "\(label) is not a server trust: \(error.message)",
                underlying: error
            )
        }
    }
}
