// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import Synchronization

/// A deterministic random source for known-answer tests: every call to ``fill(_:)`` returns the next bytes of a
/// stream fixed by the seed (libsodium `randombytes_buf_deterministic`, keyed per call by BLAKE2b(seed ‖ counter)).
///
/// - Warning: Never use this outside tests. Anyone who knows the seed knows every key it produced.
@_spi(Testing)
public final class SeededRandomSource: RandomSource {
    private let seed: [UInt8]
    private let counter = Mutex<UInt64>(0)

    /// Creates a source from a 32-byte seed.
    public init(seed: [UInt8]) {
        precondition(seed.count == 32, "seed must be 32 bytes")
        self.seed = seed
    }

    /// Creates a source whose seed is 32 copies of `byte`.
    public convenience init(repeating byte: UInt8) {
        self.init(seed: [UInt8](repeating: byte, count: 32))
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        SodiumRuntime.ensureInitialized()
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let call = counter.withLock { value -> UInt64 in
            defer { value += 1 }
            return value
        }
        var input = seed
        withUnsafeBytes(of: call.littleEndian) { input.append(contentsOf: $0) }
        var callSeed = [UInt8](repeating: 0, count: Int(randombytes_SEEDBYTES))
        crypto_generichash(&callSeed, callSeed.count, input, UInt64(input.count), nil, 0)
        randombytes_buf_deterministic(base, buffer.count, callSeed)
    }
}
