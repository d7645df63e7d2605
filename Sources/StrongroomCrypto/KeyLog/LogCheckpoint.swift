// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A log's checkpoint in the C2SP `tlog-checkpoint` format: the body of a signed note, three lines — the log's origin,
/// its size in decimal, the base64 of its root hash — and optional extension lines.
///
/// Parsing is strict: a size with a sign or leading zeros, or past ``MerkleProof/maximumTreeSize``, a root that is
/// not 32 bytes of base64, an empty line or more than ``maximumExtensions`` extension lines are
/// ``CryptoError/Code/invalidFormat``.
public struct LogCheckpoint: Sendable, Hashable {
    /// The most extension lines accepted.
    public static let maximumExtensions = 16

    /// The log's name, unique to it (e.g. `strongroom.example.com/keylog`).
    public var origin: String
    /// How many leaves the log holds.
    public var size: UInt64
    /// The root hash of those leaves.
    public var root: MerkleHash
    /// Extension lines, in order (none by default).
    public var extensions: [String]

    /// A checkpoint.
    public init(origin: String, size: UInt64, root: MerkleHash, extensions: [String] = []) {
        self.origin = origin
        self.size = size
        self.root = root
        self.extensions = extensions
    }

    /// Parses a checkpoint from a note's text.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` when it is not one.
    public init(text: String) throws(CryptoError) {
        try SignedNote.checkText(text)
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines.count <= 3 + Self.maximumExtensions, lines.allSatisfy({ !$0.isEmpty }) else {
            throw CryptoError(
                .invalidFormat,
                "a checkpoint is an origin, a size, a root hash and at most \(Self.maximumExtensions) more lines"
            )
        }
        let sizeText = lines[1]
        guard sizeText.utf8.allSatisfy({ (0x30...0x39).contains($0) }), sizeText == "0" || !sizeText.hasPrefix("0"),
            let size = UInt64(sizeText), size <= MerkleProof.maximumTreeSize
        else {
            throw CryptoError(.invalidFormat, "a checkpoint's size is a decimal number without leading zeros")
        }
        guard let bytes = Data(base64Encoded: String(lines[2])), let root = MerkleHash(bytes: bytes),
            Data(bytes).base64EncodedString() == lines[2]
        else {
            throw CryptoError(.invalidFormat, "a checkpoint's root is the base64 of 32 bytes")
        }
        self.init(origin: String(lines[0]), size: size, root: root, extensions: lines.dropFirst(3).map(String.init))
    }

    /// The note text: the lines, each ending in a newline.
    public var text: String {
        ([origin, String(size), Data(root.bytes).base64EncodedString()] + extensions).map { $0 + "\n" }.joined()
    }
}
