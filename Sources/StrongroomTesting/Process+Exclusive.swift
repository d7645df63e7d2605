// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import Synchronization

extension Process {
    /// Starts the process as `run()` does, but never while another start made through here is under way: every child
    /// a test starts goes through this.
    ///
    /// Foundation on Linux learns that a child has exited when a socket the child holds closes, and it makes that
    /// socket pair without close-on-exec. A child that another thread starts while the pair is being set up inherits
    /// the first child's end as well, and the first child's exit then goes unseen until the second one exits too: a
    /// test waiting for a short-lived tool, or for a server it stopped, waited as long as some other test's server
    /// lived. Measured on this machine with eight threads starting processes: 206 of 1,200 children held another's
    /// socket, and a `/bin/true` was seen to exit only 15 s later, when a `sleep 15` started beside it ended. Two such
    /// waits on the cooperative pool's two threads stall every test of the run (`Process/waitUntilExit()` blocks its
    /// thread) — the likely cause of a CI run that stopped printing 81 s in and never ended. Starts are quick (a
    /// `posix_spawn`), so taking them one at a time costs nothing measurable.
    public func runExclusively() throws {
        try Self.starting.withLock { _ in try run() }
    }

    /// Held while a child is started.
    private static let starting = Mutex<Void>(())
}
