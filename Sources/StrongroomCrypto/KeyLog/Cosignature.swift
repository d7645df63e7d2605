// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A witness's Ed25519 key for C2SP `tlog-cosignature` v1 cosignatures, in the verifier-key form
/// `<name>+<key ID, 8 hex>+<base64(0x04 ‖ 32-byte key)>`.
///
/// A cosignature is a note signature whose bytes are a big-endian 64-bit timestamp and an Ed25519 signature over
/// `cosignature/v1\ntime <timestamp>\n` followed by the checkpoint's text: the witness's statement that, at that time,
/// this is the largest consistent checkpoint of the log it has seen. The key ID is the first four bytes of
/// SHA-256(name ‖ `\n` ‖ 0x04 ‖ key), so a cosigner key never matches a log's (type 0x01) key.
public struct CosignerKey: Sendable, Hashable, CustomStringConvertible {
    /// The signature type byte of cosignature/v1 keys.
    public static let signatureType: UInt8 = 0x04

    /// The witness's name.
    public let name: String
    /// The key ID.
    public let keyID: UInt32
    /// The Ed25519 public key.
    public let publicKey: SigningPublicKey

    /// The key `publicKey` under `name`.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a name that is empty or holds a space, a newline or `+`.
    public init(name: String, publicKey: SigningPublicKey) throws(CryptoError) {
        guard NoteVerifierKey.isName(Substring(name)) else {
            throw CryptoError(.invalidFormat, "a cosigner's name is not empty and has no space, newline or +")
        }
        self.name = name
        self.publicKey = publicKey
        keyID = NoteVerifierKey.keyID(name: name, type: Self.signatureType, publicKey: publicKey)
    }

    /// Parses the verifier-key form.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when it does not parse, is not a cosignature/v1 key or its key ID
    ///   does not match.
    public init(_ text: String) throws(CryptoError) {
        let parsed = try NoteVerifierKey.parse(text, type: Self.signatureType, what: "a cosigner key")
        try self.init(name: parsed.name, publicKey: parsed.key)
        guard keyID == parsed.keyID else { throw CryptoError(.invalidKey, "a cosigner key's ID does not match") }
    }

    /// The verifier-key form.
    public var description: String {
        NoteVerifierKey.text(name: name, keyID: keyID, type: Self.signatureType, publicKey: publicKey)
    }

    /// The time of this key's cosignature on `note`, or nil when it carries none.
    ///
    /// - Throws: ``CryptoError/Code/invalidSignature`` when a signature line names this key and does not verify, is
    ///   not 72 bytes, has a time past 2⁶³ − 1, or when the key cosigned twice.
    public func cosignatureTime(on note: SignedNote) throws(CryptoError) -> UInt64? {
        var time: UInt64?
        for signature in note.signatures where signature.name == name && signature.keyID == keyID {
            guard time == nil else { throw CryptoError(.invalidSignature, "\(name) cosigned the note twice") }
            guard signature.bytes.count == 72 else {
                throw CryptoError(
                    .invalidSignature,
                    "\(name)'s cosignature is not a timestamp and an Ed25519 signature"
                )
            }
            let stamp = signature.bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard stamp <= UInt64(Int64.max),
                publicKey.isValidSignature(
                    Array(signature.bytes.dropFirst(8)),
                    for: Self.message(text: note.text, time: stamp)
                )
            else {
                throw CryptoError(.invalidSignature, "\(name)'s cosignature on the note does not verify")
            }
            time = stamp
        }
        return time
    }

    /// The bytes a cosignature/v1 signs.
    static func message(text: String, time: UInt64) -> [UInt8] {
        Array("cosignature/v1\ntime \(time)\n".utf8) + Array(text.utf8)
    }
}

/// A witness's signer of cosignature/v1 cosignatures.
public struct Cosigner: Sendable {
    /// The key its cosignatures verify under.
    public let key: CosignerKey
    private let privateKey: SigningPrivateKey

    /// A cosigner of `privateKey` under `name`.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a name that is not valid.
    public init(name: String, privateKey: SigningPrivateKey) throws(CryptoError) {
        self.privateKey = privateKey
        key = try CosignerKey(name: name, publicKey: privateKey.publicKey)
    }

    /// The cosignature line on `text` (a checkpoint, ending in a newline) at `time` (Unix seconds).
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for text that is not a note's, or a time past 2⁶³ − 1.
    public func cosignature(on text: String, time: UInt64) throws(CryptoError) -> SignedNote.Signature {
        try SignedNote.checkText(text)
        guard time <= UInt64(Int64.max) else { throw CryptoError(.invalidFormat, "a cosignature's time is below 2⁶³") }
        let signature = privateKey.signature(for: CosignerKey.message(text: text, time: time))
        let stamp = withUnsafeBytes(of: time.bigEndian) { Array($0) }
        return SignedNote.Signature(name: key.name, keyID: key.keyID, bytes: stamp + Array(signature))
    }
}
