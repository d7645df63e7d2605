// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

/// A secretstream state (it holds the stream's derived key) in one place, wiped when released: a stream dropped
/// half-way, after an error say, leaves no key behind. A class, so the state is never copied (a copied state would
/// reuse nonces) and so its `deinit` can wipe it, which a noncopyable struct's cannot.
final class SecretStreamState {
    var state = crypto_secretstream_xchacha20poly1305_state()

    deinit { withUnsafeMutableBytes(of: &state) { Wipe.memory($0) } }
}

/// A plaintext buffer whose whole storage, spare capacity included, is wiped when released
/// (``Wipe/allocation(_:)``).
final class PlaintextBuffer {
    var bytes: [UInt8] = []

    deinit { Wipe.allocation(&bytes) }
}
