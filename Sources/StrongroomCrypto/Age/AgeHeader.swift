// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One recipient stanza of an age header: its arguments (the first names its type) and its body.
struct AgeStanza: Sendable, Hashable {
    var arguments: [String]
    var body: Data
}

/// An age v1 header (c2sp.org/age): the version line, the stanzas, and the MAC line, parsed strictly — canonical
/// base64 without padding, body lines of 64 characters but the last, single spaces between arguments — and bounded.
struct AgeHeader: Sendable {
    static let versionLine = "age-encryption.org/v1"
    /// The longest header read: room for about 2,500 post-quantum recipients.
    static let maximumBytes = 4 << 20
    /// The most stanzas a header may hold.
    static let maximumStanzas = 4_096

    var stanzas: [AgeStanza]
    /// The header's bytes up to and including `---`, which the MAC covers.
    var authenticated: Data
    var mac: Data

    /// The header at the start of `bytes`, and how many bytes it took (its final newline included).
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a header that is malformed or past the bounds;
    ///   ``CryptoError/Code/truncated`` when `bytes` ends before the MAC line (read more, or the file is cut).
    static func parse(_ bytes: Data) throws(CryptoError) -> (header: AgeHeader, length: Int) {
        var lines = LineReader(bytes)
        guard try lines.next() == versionLine else {
            throw CryptoError(.invalidFormat, "not an age file (its first line is not \(versionLine))")
        }
        var stanzas: [AgeStanza] = []
        while true {
            let start = lines.offset
            let line = try lines.next()
            if line.hasPrefix("--- ") || line == "---" {
                let macText = String(line.dropFirst(4))
                guard line.hasPrefix("--- "), let mac = AgeBase64.decode(macText), mac.count == 32 else {
                    throw CryptoError(.invalidFormat, "the age header's MAC line is malformed")
                }
                let authenticated = bytes[bytes.startIndex..<bytes.startIndex + start + 3]
                return (AgeHeader(stanzas: stanzas, authenticated: Data(authenticated), mac: mac), lines.offset)
            }
            guard line.hasPrefix("-> ") else { throw CryptoError(.invalidFormat, "an age header line is malformed") }
            let arguments = line.dropFirst(3).split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard !arguments.isEmpty, arguments.allSatisfy({ !$0.isEmpty }) else {
                throw CryptoError(.invalidFormat, "an age stanza has an empty argument")
            }
            var body = Data()
            while true {
                let bodyLine = try lines.next()
                guard bodyLine.utf8.count <= 64, let decoded = AgeBase64.decode(bodyLine) else {
                    throw CryptoError(.invalidFormat, "an age stanza's body is not canonical base64 lines")
                }
                body += decoded
                if bodyLine.utf8.count < 64 { break }
            }
            stanzas.append(AgeStanza(arguments: arguments, body: body))
            guard stanzas.count <= maximumStanzas else {
                throw CryptoError(.invalidFormat, "an age header holds at most \(maximumStanzas) stanzas")
            }
        }
    }

    /// A header of `stanzas`, MACed under `fileKey`.
    init(stanzas: [AgeStanza], fileKey: SecureBytes) throws(CryptoError) {
        var text = Self.versionLine + "\n"
        for stanza in stanzas {
            text += "-> " + stanza.arguments.joined(separator: " ") + "\n"
            let encoded = Array(AgeBase64.encode(stanza.body).utf8)
            var index = 0
            repeat {
                let end = min(index + 64, encoded.count)
                text += String(decoding: encoded[index..<end], as: UTF8.self) + "\n"
                index += 64
            } while index <= encoded.count
        }
        text += "---"
        self.stanzas = stanzas
        authenticated = Data(text.utf8)
        mac = try Self.mac(authenticated, fileKey: fileKey)
    }

    private init(stanzas: [AgeStanza], authenticated: Data, mac: Data) {
        (self.stanzas, self.authenticated, self.mac) = (stanzas, authenticated, mac)
    }

    /// The header's bytes, its final newline included.
    var encoded: Data { authenticated + Data((" " + AgeBase64.encode(mac) + "\n").utf8) }

    /// Whether `fileKey` made this header's MAC (compared in constant time).
    func isAuthentic(under fileKey: SecureBytes) throws(CryptoError) -> Bool {
        ConstantTime.equals(try Self.mac(authenticated, fileKey: fileKey), mac)
    }

    static func mac(_ authenticated: Data, fileKey: SecureBytes) throws(CryptoError) -> Data {
        let key = try HKDFSHA256.deriveKey(from: fileKey, info: Data("header".utf8))
        return key.withUnsafeBytes {
            Data(HMAC<SHA256>.authenticationCode(for: authenticated, using: SymmetricKey(data: $0)))
        }
    }
}

/// Lines of a header: each ends with `\n`, holds printable ASCII only, and the header stays within its bound.
private struct LineReader {
    let bytes: Data
    var offset = 0

    init(_ bytes: Data) { self.bytes = bytes }

    mutating func next() throws(CryptoError) -> String {
        guard offset < AgeHeader.maximumBytes else {
            throw CryptoError(.invalidFormat, "an age header is at most \(AgeHeader.maximumBytes) bytes")
        }
        let start = bytes.startIndex + offset
        let limit = min(bytes.endIndex, bytes.startIndex + AgeHeader.maximumBytes)
        guard let newline = bytes[start..<limit].firstIndex(of: 0x0A) else {
            if limit < bytes.endIndex || bytes.count >= AgeHeader.maximumBytes {
                throw CryptoError(.invalidFormat, "an age header is at most \(AgeHeader.maximumBytes) bytes")
            }
            throw CryptoError(.truncated, "the age header ends before its MAC line")
        }
        let line = bytes[start..<newline]
        guard line.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw CryptoError(.invalidFormat, "an age header line holds a character outside printable ASCII")
        }
        offset = newline - bytes.startIndex + 1
        return String(decoding: line, as: UTF8.self)
    }
}

/// age's base64: the standard alphabet without padding, canonical only (libsodium refuses stray bits).
enum AgeBase64 {
    static func encode(_ bytes: Data) -> String {
        let variant = Int32(sodium_base64_VARIANT_ORIGINAL_NO_PADDING)
        let length = sodium_base64_encoded_len(bytes.count, variant)
        var output = [CChar](repeating: 0, count: length)
        bytes.withUnsafeBytes { raw in
            _ = sodium_bin2base64(&output, length, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, variant)
        }
        return String(decoding: output.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of `text`; nil for anything but canonical unpadded standard base64.
    static func decode(_ text: String) -> Data? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        if characters.isEmpty { return Data() }
        var output = [UInt8](repeating: 0, count: characters.count * 3 / 4 + 1)
        var written = 0
        // Without an end pointer, libsodium refuses input it did not consume whole.
        let result = characters.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { chars in
                sodium_base642bin(
                    &output,
                    output.count,
                    chars.baseAddress,
                    chars.count,
                    nil,
                    &written,
                    nil,
                    Int32(sodium_base64_VARIANT_ORIGINAL_NO_PADDING)
                )
            }
        }
        guard result == 0 else { return nil }
        return Data(output.prefix(written))
    }
}
