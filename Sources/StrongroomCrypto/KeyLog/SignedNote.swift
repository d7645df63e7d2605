// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A note in the C2SP signed-note format: UTF-8 text ending in a newline, a blank line, then one line per signature,
/// `— <name> <base64(key ID ‖ signature)>`. It is how a log's checkpoints and a witness's cosignatures travel.
///
/// Parsing is bounded (``maximumBytes``, ``maximumSignatures``) and strict: text that is not UTF-8, holds a control
/// character other than the newline or does not end in one, and a signature line that does not parse, are
/// ``CryptoError/Code/invalidFormat``. A signature by a key the verifier does not know is ignored, as the format asks,
/// so that logs and witnesses can rotate keys.
public struct SignedNote: Sendable, Hashable {
    /// One signature line.
    public struct Signature: Sendable, Hashable {
        /// The signer's name.
        public var name: String
        /// The signer's key ID (the first four bytes of a hash of its name, type and key, big-endian).
        public var keyID: UInt32
        /// The signature bytes (64 for Ed25519).
        public var bytes: [UInt8]
    }

    /// The largest note accepted, in bytes.
    public static let maximumBytes = 1 << 20
    /// The most signature lines accepted.
    public static let maximumSignatures = 100

    /// The signed text, ending in a newline.
    public let text: String
    /// The signatures, in their order.
    public let signatures: [Signature]

    /// A note of `text` (which must end in a newline) with `signatures`.
    public init(text: String, signatures: [Signature]) throws(CryptoError) {
        try Self.checkText(text)
        guard signatures.count <= Self.maximumSignatures else {
            throw CryptoError(.invalidFormat, "a note carries at most \(Self.maximumSignatures) signatures")
        }
        self.text = text
        self.signatures = signatures
    }

    /// Parses a signed note.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` when it is not one, or is larger than the bounds.
    public init(parsing note: String) throws(CryptoError) {
        let bytes = Array(note.utf8)
        guard bytes.count <= Self.maximumBytes else {
            throw CryptoError(.invalidFormat, "a note is at most \(Self.maximumBytes) bytes")
        }
        // The text ends at the last blank line; every line after it is a signature.
        guard let split = Self.lastBlankLine(in: bytes) else {
            throw CryptoError(.invalidFormat, "a signed note has a blank line before its signatures")
        }
        let text = String(decoding: bytes[..<(split + 1)], as: UTF8.self)
        let lines = bytes[(split + 2)...]
        guard lines.last == 0x0A else { throw CryptoError(.invalidFormat, "a note's signatures end with a newline") }
        var signatures: [Signature] = []
        for line in lines.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false) {
            guard signatures.count < Self.maximumSignatures else {
                throw CryptoError(.invalidFormat, "a note carries at most \(Self.maximumSignatures) signatures")
            }
            signatures.append(try Self.signature(String(decoding: line, as: UTF8.self)))
        }
        guard !signatures.isEmpty else { throw CryptoError(.invalidFormat, "a signed note has a signature") }
        try self.init(text: text, signatures: signatures)
    }

    /// The note as it travels: the text, a blank line, the signature lines.
    public var encoded: String {
        var note = text + "\n"
        for signature in signatures {
            var blob = withUnsafeBytes(of: signature.keyID.bigEndian) { Array($0) }
            blob += signature.bytes
            note += "— \(signature.name) \(Data(blob).base64EncodedString())\n"
        }
        return note
    }

    /// The keys among `keys` whose signatures on this note verify (each at most once).
    ///
    /// - Throws: ``CryptoError/Code/invalidSignature`` when a signature names one of `keys` and does not verify,
    ///   when one key signed twice, or when none of `keys` signed.
    public func verified(by keys: [NoteVerifierKey]) throws(CryptoError) -> [NoteVerifierKey] {
        var found: [NoteVerifierKey] = []
        let message = Array(text.utf8)
        for signature in signatures {
            guard let key = keys.first(where: { $0.name == signature.name && $0.keyID == signature.keyID }) else {
                continue
            }
            guard !found.contains(key) else {
                throw CryptoError(.invalidSignature, "\(key.name) signed the note twice")
            }
            guard key.publicKey.isValidSignature(signature.bytes, for: message) else {
                throw CryptoError(.invalidSignature, "\(key.name)'s signature on the note does not verify")
            }
            found.append(key)
        }
        guard !found.isEmpty else { throw CryptoError(.invalidSignature, "no known key signed the note") }
        return found
    }

    /// Checks text (UTF-8, as every Swift string is): at most ``maximumBytes``, ending in a newline, no control
    /// character but the newline.
    static func checkText(_ text: String) throws(CryptoError) {
        guard text.utf8.count <= maximumBytes else {
            throw CryptoError(.invalidFormat, "a note is at most \(maximumBytes) bytes")
        }
        guard text.utf8.last == 0x0A else { throw CryptoError(.invalidFormat, "a note's text ends with a newline") }
        guard !text.unicodeScalars.contains(where: { $0 != "\n" && ($0.value < 0x20 || $0.value == 0x7F) }) else {
            throw CryptoError(.invalidFormat, "a note's text holds a control character")
        }
    }

    /// The index of the first newline of the last "\n\n" in `bytes`.
    private static func lastBlankLine(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        var index = bytes.count - 2
        while index >= 0 {
            if bytes[index] == 0x0A && bytes[index + 1] == 0x0A { return index }
            index -= 1
        }
        return nil
    }

    /// One `— name base64` line.
    private static func signature(_ line: String) throws(CryptoError) -> Signature {
        guard line.hasPrefix("— ") else {
            throw CryptoError(.invalidFormat, "a signature line starts with an em dash and a space")
        }
        let parts = line.dropFirst(2).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, NoteVerifierKey.isName(parts[0]),
            let blob = Data(base64Encoded: String(parts[1])), blob.count > 4
        else {
            throw CryptoError(.invalidFormat, "a signature line is a name and base64 of a key ID and a signature")
        }
        let keyID = blob.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Signature(name: String(parts[0]), keyID: keyID, bytes: Array(blob.dropFirst(4)))
    }
}

/// An Ed25519 key that verifies signed notes, in the C2SP verifier-key form `<name>+<key ID, 8 hex>+<base64(0x01 ‖
/// public key)>`. The key ID is the first four bytes of SHA-256(name ‖ `\n` ‖ 0x01 ‖ public key).
public struct NoteVerifierKey: Sendable, Hashable, CustomStringConvertible {
    /// The signer's name (no spaces, newlines or `+`).
    public let name: String
    /// The key ID.
    public let keyID: UInt32
    /// The Ed25519 public key.
    public let publicKey: SigningPublicKey

    /// The key `publicKey` under `name`.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a name that is empty or holds a space, a newline or `+`.
    public init(name: String, publicKey: SigningPublicKey) throws(CryptoError) {
        guard Self.isName(Substring(name)) else {
            throw CryptoError(.invalidFormat, "a note signer's name is not empty and has no space, newline or +")
        }
        self.name = name
        self.publicKey = publicKey
        keyID = Self.keyID(name: name, publicKey: publicKey)
    }

    /// Parses the verifier-key form.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when it does not parse, is not Ed25519 or its key ID does not match.
    public init(_ text: String) throws(CryptoError) {
        let parsed = try Self.parse(text, type: 0x01, what: "a note verifier key")
        try self.init(name: parsed.name, publicKey: parsed.key)
        guard keyID == parsed.keyID else { throw CryptoError(.invalidKey, "a note verifier key's ID does not match") }
    }

    /// The verifier-key form.
    public var description: String { Self.text(name: name, keyID: keyID, type: 0x01, publicKey: publicKey) }

    static func keyID(name: String, publicKey: SigningPublicKey) -> UInt32 {
        keyID(name: name, type: 0x01, publicKey: publicKey)
    }

    /// The first four bytes, big-endian, of SHA-256(name ‖ `\n` ‖ type ‖ key): a signed note's key ID.
    static func keyID(name: String, type: UInt8, publicKey: SigningPublicKey) -> UInt32 {
        var hasher = SHA256()
        hasher.update(data: Array(name.utf8) + [0x0A, type])
        hasher.update(data: publicKey.rawRepresentation)
        return hasher.finalize().prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// `name+keyid+base64(type ‖ key)` for an Ed25519 key of signature type `type` (0x01 notes, 0x04 cosignatures):
    /// its name, key ID and key; the caller checks that the key ID is the one its name and key give.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` naming `what` when it does not parse or is of another type.
    static func parse(
        _ text: String,
        type: UInt8,
        what: String
    ) throws(CryptoError)
        -> (name: String, keyID: UInt32, key: SigningPublicKey)
    {
        let parts = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard text.utf8.count <= 512, parts.count == 3, parts[1].utf8.count == 8,
            parts[1].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let keyID = UInt32(parts[1], radix: 16), let blob = Data(base64Encoded: String(parts[2])),
            blob.count == 33, blob.first == type, isName(parts[0])
        else {
            throw CryptoError(.invalidKey, "\(what) is name+keyid+base64 of an Ed25519 key of type \(type)")
        }
        do {
            return (String(parts[0]), keyID, try SigningPublicKey(rawRepresentation: blob.dropFirst()))
        } catch {
            throw CryptoError(.invalidKey, "\(what)'s public key is not Ed25519", underlying: error)
        }
    }

    /// The verifier-key form of `publicKey` under `name`, of signature type `type`.
    static func text(name: String, keyID: UInt32, type: UInt8, publicKey: SigningPublicKey) -> String {
        let id = String(keyID, radix: 16)
        return "\(name)+\(String(repeating: "0", count: 8 - id.count) + id)+"
            + Data([type] + publicKey.rawRepresentation).base64EncodedString()
    }

    static func isName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 256
            && !name.unicodeScalars.contains { $0 == "+" || $0.properties.isWhitespace || $0.value < 0x20 }
    }
}

/// Signs notes with an Ed25519 key under a name (libsodium's Ed25519, deterministic as RFC 8032 defines it).
public struct NoteSigner: Sendable {
    /// The key that verifies this signer's notes.
    public let verifierKey: NoteVerifierKey
    private let key: SigningPrivateKey

    /// A signer of `key` under `name`.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a name that is not valid.
    public init(name: String, key: SigningPrivateKey) throws(CryptoError) {
        self.key = key
        verifierKey = try NoteVerifierKey(name: name, publicKey: key.publicKey)
    }

    /// This signer's signature line for `text` (which must end in a newline).
    public func signature(for text: String) throws(CryptoError) -> SignedNote.Signature {
        try SignedNote.checkText(text)
        return SignedNote.Signature(
            name: verifierKey.name,
            keyID: verifierKey.keyID,
            bytes: Array(key.signature(for: Array(text.utf8)))
        )
    }

    /// `text` signed by this signer alone.
    public func sign(_ text: String) throws(CryptoError) -> SignedNote {
        try SignedNote(text: text, signatures: [try signature(for: text)])
    }
}
