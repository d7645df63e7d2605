// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore

extension Keychain {
    /// Where access-group keychains live: `groups/` beside ``defaultURL``.
    public static var defaultAccessGroupsDirectory: URL {
        defaultURL.deletingLastPathComponent().appending(path: "groups")
    }

    /// The keychain an access group's apps share (Apple's keychain access groups, for the apps of one user on Linux):
    /// its own encrypted file, `<directory>/<group>.keychain`, unlocked with the group's own passphrase, so that an
    /// app of the group sees the group's items and nothing of each app's own keychain, and an app outside it sees
    /// nothing without the group's passphrase. Pass the group's passphrase source (a value the apps share through
    /// the desktop keyring, `PassphraseSource.secretService(service:account:)`, is the usual choice).
    ///
    /// Setting ``ItemQuery/accessGroup`` stays ``KeychainError/Code/unsupported``: open the group's keychain instead.
    ///
    /// - Parameters:
    ///   - group: the group's name, such as `com.example.shared`: 1 to 128 letters, digits, `.`, `-` or `_`, not
    ///     starting with a dot.
    ///   - sources: where the group's passphrase comes from, in order.
    ///   - directory: the folder of group keychains (``defaultAccessGroupsDirectory`` by default).
    /// - Throws: ``KeychainError/Code/invalidParameters`` for a group name that could name another file, or when
    ///   no source yields a passphrase; what ``opening(_:passphrase:)`` throws (a wrong passphrase is
    ///   ``KeychainError/Code/wrongPassphrase``).
    public static func accessGroup(
        _ group: String,
        passphrase sources: [PassphraseSource],
        directory: URL = defaultAccessGroupsDirectory
    ) throws(KeychainError) -> Keychain {
        let allowed = group.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x2D || byte == 0x5F
        }
        guard allowed, (1...128).contains(group.utf8.count), !group.hasPrefix(".") else {
            throw KeychainError(
                .invalidParameters,
                "an access group is 1 to 128 letters, digits, '.', '-' or '_', not starting with '.'"
            )
        }
        return try opening(directory.appending(path: group + ".keychain"), passphrase: sources)
    }
}
