// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
@_spi(Testing) import StrongroomCore
import StrongroomTesting
import Testing

@Suite struct SecureBytesTests {
    @Test("equality compares contents and length")
    func equality() {
        #expect(SecureBytes(copying: [1, 2, 3]) == SecureBytes(copying: [1, 2, 3]))
        #expect(SecureBytes(copying: [1, 2, 3]) != SecureBytes(copying: [1, 2, 4]))
        #expect(SecureBytes(copying: [1, 2, 3]) != SecureBytes(copying: [1, 2]))
        #expect(SecureBytes(copying: []) == SecureBytes(copying: []))
    }

    @Test("never prints its bytes")
    func redacted() {
        let secret = SecureBytes(copying: Array("hunter2-secret".utf8))
        #expect(!String(describing: secret).contains("hunter2"))
        #expect(!String(reflecting: secret).contains("hunter2"))
        #expect(String(describing: secret).contains("redacted"))
    }

    @Test("a throwing initializer leaves nothing behind and rethrows the caller's error")
    func throwingInitializer() {
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            _ = try SecureBytes(count: 8) { _ throws(Failure) in throw Failure() }
        }
    }

    @Test("slices copy the requested range")
    func slices() {
        let bytes = SecureBytes(copying: [0, 1, 2, 3, 4, 5])
        #expect(bytes.slice(2..<5) == SecureBytes(copying: [2, 3, 4]))
    }

    @Test("wipe zeroes an array in place")
    func wipe() {
        var buffer: [UInt8] = [9, 9, 9]
        Wipe.bytes(&buffer)
        #expect(buffer == [0, 0, 0])
    }

    @Test("wiping an allocation zeroes the spare capacity an earlier fill left behind, keeping count and storage")
    func wipeAllocation() {
        var buffer = [UInt8](repeating: 9, count: 4096)
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: [7, 7, 7])
        let capacity = buffer.capacity
        #expect(storedBytes(of: &buffer).contains(9))
        Wipe.allocation(&buffer)
        #expect(buffer == [0, 0, 0])
        #expect(buffer.capacity == capacity)
        let stored = storedBytes(of: &buffer)
        #expect(stored.count == capacity)
        #expect(stored.allSatisfy { $0 == 0 })
    }
}

@Suite struct ConstantTimeTests {
    @Test(
        "compares buffers, sequences and strings",
        arguments: [
            ("same", "same", true), ("same", "sane", false), ("short", "shorter", false), ("", "", true),
        ]
    )
    func compares(lhs: String, rhs: String, expected: Bool) {
        #expect(ConstantTime.equals(lhs, rhs) == expected)
        #expect(ConstantTime.equals(Array(lhs.utf8), Array(rhs.utf8)) == expected)
    }
}

@Suite struct SecureRandomTests {
    @Test("system randomness differs between calls")
    func systemDiffers() {
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
        #expect(SecureRandom.data(count: 0).isEmpty)
    }

    @Test("a seeded source repeats for the same seed and differs per call")
    func seededIsDeterministic() {
        let first = SeededRandomSource(repeating: 7)
        let second = SeededRandomSource(repeating: 7)
        let a1 = SecureRandom.data(count: 24, using: first)
        let a2 = SecureRandom.data(count: 24, using: first)
        #expect(a1 == SecureRandom.data(count: 24, using: second))
        #expect(a2 == SecureRandom.data(count: 24, using: second))
        #expect(a1 != a2)
        #expect(a1 != SecureRandom.data(count: 24, using: SeededRandomSource(repeating: 8)))
    }

    @Test("random UUIDs are version 4, variant 1")
    func uuidVersion() {
        let text = SecureRandom.uuid().uuidString.lowercased()
        let characters = Array(text)
        #expect(characters[14] == "4")
        #expect("89ab".contains(characters[19]))
    }

    @Test("a fixed wall clock reports its instant")
    func fixedClock() {
        #expect(FixedWallClock(unixTime: 1_700_000_000).now.timeIntervalSince1970 == 1_700_000_000)
    }
}
