// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

/// `sodium_init()` exactly once per process, before the first libsodium call.
private let sodiumInitialized: Bool = sodium_init() >= 0

/// Makes sure libsodium is initialised; every Strongroom entry point that calls libsodium goes through this.
package enum SodiumRuntime {
    /// Initialises libsodium on first use. A failure here means the process cannot get randomness, so it stops.
    @inline(__always)
    package static func ensureInitialized() {
        precondition(sodiumInitialized, "libsodium could not be initialised (sodium_init failed)")
    }
}
