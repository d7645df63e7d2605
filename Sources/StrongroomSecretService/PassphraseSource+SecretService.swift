// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomKeychain

extension Keychain.PassphraseSource {
    /// The keychain passphrase kept in the desktop keyring as a standard password item (`service` and `username`
    /// attributes), so a desktop session unlocks the keychain file without a prompt:
    ///
    /// ```swift
    /// let keychain = try Keychain.opening(
    ///     Keychain.defaultURL,
    ///     passphrase: [.secretService()] + Keychain.defaultPassphraseSources
    /// )
    /// ```
    ///
    /// Store the passphrase once with `secret-tool store --label='Strongroom keychain' service strongroom username
    /// keychain`, Python's `keyring.set_password("strongroom", "keychain", …)` or Strongroom itself. Without a
    /// session bus, or with no such item, the source yields nothing and the next one is tried; a Secret Service that
    /// answers with an error is that error.
    public static func secretService(service: String = "strongroom", account: String = "keychain") -> Self {
        .provider { () throws(KeychainError) -> String? in
            guard SecretServiceBackend.sessionBusAvailable else { return nil }
            let keyring = Keychain(backend: SecretServiceBackend())
            return try keyring.retrieve(.credential(for: account, service: service))
        }
    }
}
