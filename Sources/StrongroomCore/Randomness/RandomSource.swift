// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

/// Where Strongroom gets random bytes for keys, nonces and identifiers.
///
/// Production code uses ``SystemRandomSource``. Tests that need reproducible output (known-answer vectors) use
/// the seeded source behind `@_spi(Testing)`.
public protocol RandomSource: Sendable {
    /// Fills `buffer` with random bytes.
    func fill(_ buffer: UnsafeMutableRawBufferPointer)
}

/// The operating system's CSPRNG, through libsodium's `randombytes_buf` (`getrandom(2)` on Linux).
public struct SystemRandomSource: RandomSource {
    /// Creates the system source. It holds no state.
    public init() {}

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        SodiumRuntime.ensureInitialized()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }
}

extension RandomSource where Self == SystemRandomSource {
    /// The operating system's CSPRNG.
    public static var system: SystemRandomSource { SystemRandomSource() }
}
