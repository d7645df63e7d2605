// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomKeychain

extension Client.Configuration {
    /// The keychain item of a profile: a generic password, service `dev.strongroom.profile`, account = profile.
    public static func keychainQuery(profile: String) -> ItemQuery<GenericPassword> {
        var query = ItemQuery<GenericPassword>.credential(for: profile, service: "dev.strongroom.profile")
        query.label = "Strongroom profile \(profile)"
        return query
    }

    /// Saves the configuration in a keychain under a profile name (e3db-swift's `Config.save(profile:)`), as the
    /// official `e3db.json` text, sealed like every keychain item. An existing profile of that name is replaced in
    /// one step (creation date kept, `accessPolicy` applied).
    ///
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when the keychain refuses (locked, for example).
    public func save(profile: String, to keychain: Keychain, accessPolicy: AccessPolicy = .default) throws(ClientError)
    {
        let json = SecureBytes(copying: try profileJSON())
        let query = Self.keychainQuery(profile: profile)
        do {
            try keychain.store(json, query: query, accessPolicy: accessPolicy, replacing: true)
        } catch {
            throw ClientError(
                .invalidConfiguration,
                "the keychain refused the profile: \(error.message)",
                underlying: error
            )
        }
    }

    /// Loads a profile saved with ``save(profile:to:accessPolicy:)`` (e3db-swift's `Config(loadProfile:)`). Its key
    /// log state is kept in the same keychain (``KeyLogKeychainState``), so only the profile's first run trusts the
    /// log on first use; loading writes nothing, the first key operation does.
    ///
    /// - Throws: ``ClientError/Code/notFound`` when the keychain has no such profile,
    ///   ``ClientError/Code/invalidConfiguration`` when the keychain refuses or the item is not a configuration.
    public init(loadProfile profile: String, from keychain: Keychain) throws(ClientError) {
        let json: SecureBytes?
        do {
            json = try keychain.retrieve(Self.keychainQuery(profile: profile), as: SecureBytes.self)
        } catch {
            throw ClientError(
                .invalidConfiguration,
                "the keychain refused the profile: \(error.message)",
                underlying: error
            )
        }
        guard let json else { throw ClientError(.notFound, "the keychain has no profile \(profile)") }
        try self.init(profileJSON: json.withUnsafeBytes { Data($0) }, profile: profile)
        keyLog.state = KeyLogKeychainState(keychain: keychain, profile: profile)
    }
}
