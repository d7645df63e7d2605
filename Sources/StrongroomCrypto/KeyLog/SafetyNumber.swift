// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A code two users compare out of band — read aloud, or one scans the other's — to check that each holds the
/// other's real keys: 60 digits, the same on both sides (the StrongroomClient article "Verifying contacts").
///
/// Each client's half is 30 digits derived from exactly what its key log leaf binds: its ID, its X25519 key and its
/// Ed25519 key (32 zero bytes when it registered none). The input is `"strongroom/safety-number/v1"`, the ID's 16
/// bytes and the two keys; it is hashed with SHA-512, then hashed again 5,200 times with the input appended (as
/// Signal's safety numbers are, so a key that matches a given half costs that much more to search for); the first
/// 30 bytes give six 5-digit groups (each 5 bytes, big-endian, modulo 100,000). The code is the two halves in
/// ascending order, so both sides compute the same one.
public struct SafetyNumber: Sendable, Hashable, CustomStringConvertible {
    /// The 60 digits.
    public let digits: String

    /// The code of two clients.
    public init(_ first: Half, _ second: Half) {
        digits = min(first.digits, second.digits) + max(first.digits, second.digits)
    }

    /// Twelve groups of five digits, as a user reads them.
    public var groups: [String] { Self.groups(of: digits) }

    /// `digits` in groups of five, as a user reads them.
    static func groups(of digits: String) -> [String] {
        stride(from: 0, to: digits.count, by: 5).map { start in
            let from = digits.index(digits.startIndex, offsetBy: start)
            return String(digits[from..<digits.index(from, offsetBy: min(5, digits.count - start))])
        }
    }

    /// The groups separated by spaces.
    public var description: String { groups.joined(separator: " ") }

    /// Whether `text` (digits, with any spaces or dashes between them) is this code, compared in constant time.
    public func matches(_ text: String) -> Bool {
        guard text.utf8.count <= 256 else { return false }
        let typed = text.utf8.filter { $0 != 0x20 && $0 != 0x2D }
        return ConstantTime.equals(Array(typed), Array(digits.utf8))
    }

    /// One client's half: 30 digits over its ID and keys.
    public struct Half: Sendable, Hashable {
        /// Iterations of SHA-512 after the first.
        public static let iterations = 5_200
        /// The 30 digits.
        public let digits: String

        /// Six groups of five digits, as a user reads them.
        public var groups: [String] { SafetyNumber.groups(of: digits) }

        /// The half of the client `clientID` with these keys.
        public init(clientID: UUID, encryptionKey: EncryptionPublicKey, signingKey: SigningPublicKey?) {
            var input = Data("strongroom/safety-number/v1".utf8)
            withUnsafeBytes(of: clientID.uuid) { input.append(contentsOf: $0) }
            input.append(encryptionKey.rawRepresentation)
            input.append(signingKey?.rawRepresentation ?? Data(count: 32))
            var hash = Data(SHA512.hash(data: input))
            for _ in 0..<Self.iterations { hash = Data(SHA512.hash(data: hash + input)) }
            var digits = ""
            for group in 0..<6 {
                let value = hash[(group * 5)..<(group * 5 + 5)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let text = String(value % 100_000)
                digits += String(repeating: "0", count: 5 - text.count) + text
            }
            self.digits = digits
        }
    }
}
