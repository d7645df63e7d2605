// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The app's secret files (keychain, datastore, profiles: ``IntegrityContext/protectedFiles``) must be regular
/// files owned by this user and readable by no one else, in a folder others cannot write.
public struct FilePermissionCheck: IntegrityCheck {
    public init() {}
    public var name: String { "file-permissions" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        var evidence: [String] = []
        let user = geteuid()
        for url in context.protectedFiles.prefix(256) {
            let path = url.path
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }  // not there: nothing exposed
            let mode = info.st_mode & 0o7777
            if info.st_mode & S_IFMT == S_IFLNK {
                evidence.append("\(path) is a symbolic link")
            } else if mode & 0o077 != 0 {
                evidence.append("\(path) mode \(String(mode, radix: 8)) (others may access it)")
            }
            if info.st_uid != user { evidence.append("\(path) is owned by uid \(info.st_uid), not \(user)") }
            var folder = stat()
            let parent = url.deletingLastPathComponent().path
            if stat(parent, &folder) == 0, folder.st_mode & 0o022 != 0, folder.st_mode & S_ISVTX == 0 {
                evidence.append("\(parent) mode \(String(folder.st_mode & 0o7777, radix: 8)) (others may write it)")
            }
        }
        guard !evidence.isEmpty else { return [] }
        return [IntegrityObservation(.fileExposed, "a secret file is not owner-only", evidence: evidence)]
    }
}
