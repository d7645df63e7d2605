// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
public import StrongroomKeychain

/// Keeps the key log state in a keychain item beside a keychain profile: a generic password, service
/// `dev.strongroom.keylog`, account = the profile name. A configuration loaded from a keychain profile
/// (``Client/Configuration/init(loadProfile:from:)-(String,Keychain)``) keeps its state here, so only the profile's
/// first run trusts the log on first use, as a file profile keeps it in `keylog.json`.
public struct KeyLogKeychainState: KeyLogStateStore {
    /// The keychain.
    public let keychain: Keychain
    /// The profile the state belongs to.
    public let profile: String

    /// A state kept in `keychain` for `profile`.
    public init(keychain: Keychain, profile: String) {
        self.keychain = keychain
        self.profile = profile
    }

    /// The keychain item of a profile's key log state.
    public static func keychainQuery(profile: String) -> ItemQuery<GenericPassword> {
        var query = ItemQuery<GenericPassword>.credential(for: profile, service: "dev.strongroom.keylog")
        query.label = "Strongroom key log state \(profile)"
        return query
    }

    public func load() async throws -> KeyLogState? {
        let query = Self.keychainQuery(profile: profile)
        let found = try await keychain.perform { keychain throws(KeychainError) in
            try keychain.retrieve(query, as: Data.self)
        }
        guard let data = found else { return nil }
        // A state is two short lines; anything past 64 KiB is not one.
        guard data.count <= 64 << 10 else {
            throw ClientError(.invalidConfiguration, "the keychain's key log state for \(profile) is not one")
        }
        return try JSONDecoder().decode(KeyLogState.self, from: data)
    }

    public func save(_ state: KeyLogState) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(state)
        let query = Self.keychainQuery(profile: profile)
        try await keychain.perform { keychain throws(KeychainError) in
            try keychain.store(data, query: query, replacing: true)
        }
    }
}
