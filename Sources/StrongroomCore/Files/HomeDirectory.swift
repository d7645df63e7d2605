// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation

/// The user's home folder as the shell and every Unix tool see it.
///
/// Foundation on Linux answers `homeDirectoryForCurrentUser` from the account database and ignores `$HOME`, so a
/// test, a container or a user who sets `HOME` would find profiles, keychains and datastores in the account's home
/// instead. Strongroom reads `$HOME` first (when it is an absolute path), as `ssh`, `gpg` and the shell's `~` do.
public enum HomeDirectory {
    /// `$HOME` when it is set to an absolute path; otherwise the account's home from the system.
    public static var url: URL {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
    }
}
