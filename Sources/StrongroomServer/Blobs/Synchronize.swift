// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

/// `fsync` of a file or folder (blocking: run it on the `BlockingExecutor`, off the event loops); `what` names it in
/// the error.
func synchronize(_ path: String, what: String = "the blob") throws(ServerError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
        throw ServerError(.storage, "\(what) could not be synced")
    }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else {
        throw ServerError(.storage, "\(what) could not be synced")
    }
}
