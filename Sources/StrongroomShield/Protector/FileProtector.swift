// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
public import StrongroomCore
public import StrongroomCrypto
public import StrongroomKeychain

/// T.A.K's File Protector for Linux: files and small secrets encrypted at rest under a key kept in the keychain.
///
/// Files are streamed in constant memory (E3DB's file format "3": XChaCha20-Poly1305 secretstream) into a new file,
/// mode 0600, renamed into place only when everything succeeded; a flipped byte, a truncated file or another key is
/// a typed error and leaves no output. Small secrets (API tokens) are one XChaCha20-Poly1305 box.
///
/// ```swift
/// let protector = try FileProtector(keychain: keychain, key: "assets")   // created in the keychain when missing
/// try await protector.protect(contentsOf: plainURL, to: protectedURL)
/// let token = try protector.protect(Data("sk-live-…".utf8))
/// ```
///
/// Build-time assets: protect them with a key file (``init(keyFile:)``), ship the protected files, and import the
/// key into the device's keychain once (``importKey(from:into:name:)``); at run time ``init(keychain:key:createsKey:)``
/// unprotects them.
public struct FileProtector: Sendable {
    /// The key's name in the keychain (nil for a key file).
    public let keyName: String?
    private let key: AccessKey

    /// The keychain item a protector key `name` lives in.
    public static func query(for name: String) -> ItemQuery<SecKey> { .key(for: "strongroom.protector.\(name)") }

    /// A protector with the key `name` from `keychain`, generated there first when `createsKey` and it is missing.
    ///
    /// - Throws: ``ShieldError/Code/keyUnavailable`` when the key is missing (and not created) or the keychain
    ///   refuses (locked, another type).
    public init(keychain: Keychain, key name: String, createsKey: Bool = true) throws(ShieldError) {
        guard !name.isEmpty, name.utf8.count <= 256 else {
            throw ShieldError(.invalidParameters, "a protector key name is 1 to 256 bytes")
        }
        let query = Self.query(for: name)
        do {
            if let stored: AccessKey = try keychain.retrieve(query) {
                key = stored
            } else if createsKey {
                let fresh = AccessKey()
                try keychain.store(fresh, query: query)
                key = fresh
            } else {
                throw ShieldError(.keyUnavailable, "the keychain has no protector key \(name)")
            }
        } catch let error as ShieldError {
            throw error
        } catch {
            throw ShieldError(.keyUnavailable, "the protector key \(name) is unavailable", underlying: error)
        }
        keyName = name
    }

    /// A protector with the key in a key file (base64url, as `strongroom keys access-key` writes): for build
    /// machines that protect assets before shipping.
    ///
    /// - Throws: ``ShieldError/Code/keyUnavailable`` when the file cannot be read or holds no key.
    public init(keyFile: URL) throws(ShieldError) {
        key = try Self.readKeyFile(keyFile)
        keyName = nil
    }

    /// Stores the key of a key file in `keychain` as protector key `name` (never replacing one).
    ///
    /// - Throws: ``ShieldError/Code/keyUnavailable`` when the file holds no key or the keychain refuses (an item
    ///   of that name exists).
    public static func importKey(from keyFile: URL, into keychain: Keychain, name: String) throws(ShieldError) {
        let key = try readKeyFile(keyFile)
        do {
            try keychain.store(key, query: query(for: name))
        } catch {
            throw ShieldError(
                .keyUnavailable,
                "the key could not be stored as \(name): \(error.message)",
                underlying: error
            )
        }
    }

    private static func readKeyFile(_ url: URL) throws(ShieldError) -> AccessKey {
        guard let bytes = try? Data(contentsOf: url), bytes.count <= 1024 else {
            throw ShieldError(.keyUnavailable, "the key file \(url.path) cannot be read")
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            return try AccessKey(rawRepresentation: Base64URL.decodeSecret(text))
        } catch {
            throw ShieldError(.keyUnavailable, "the key file \(url.path) holds no key", underlying: error)
        }
    }

    /// Encrypts the file at `source` into a new file at `destination` (0600, which must not exist).
    ///
    /// - Throws: ``ShieldError/Code/io`` (unreadable source, existing destination), ``ShieldError/Code/cancelled``.
    public func protect(
        contentsOf source: URL,
        to destination: URL,
        progress: FileCipher.Progress? = nil
    ) async throws(ShieldError) {
        do {
            _ = try await FileCipher.encrypt(
                contentsOf: source,
                to: destination,
                with: key,
                computesChecksum: false,  // stored, never uploaded
                progress: progress
            )
        } catch {
            throw Self.mapped(error)
        }
    }

    /// Decrypts the protected file at `source` into a new file at `destination` (0600, which must not exist);
    /// nothing is written unless the whole file authenticates.
    ///
    /// - Returns: the plaintext size.
    /// - Throws: ``ShieldError/Code/authenticationFailed`` (altered, or another key), ``ShieldError/Code/truncated``,
    ///   ``ShieldError/Code/invalidFormat``, ``ShieldError/Code/io``, ``ShieldError/Code/cancelled``.
    @discardableResult
    public func unprotect(
        contentsOf source: URL,
        to destination: URL,
        progress: FileCipher.Progress? = nil
    ) async throws(ShieldError) -> Int64 {
        do {
            return try await FileCipher.decrypt(contentsOf: source, to: destination, with: key, progress: progress)
        } catch {
            throw Self.mapped(error)
        }
    }

    /// Re-encrypts an E3DB format-"3" file under `accessKey` into a protected file at `destination`, in one pass
    /// (the plaintext stays in memory): how the SDK stores a download protected at rest.
    ///
    /// - Returns: the plaintext size.
    /// - Throws: what ``unprotect(contentsOf:to:progress:)`` throws for the source.
    @discardableResult
    public func protect(
        e3dbFile source: URL,
        decryptingWith accessKey: AccessKey,
        to destination: URL,
        progress: FileCipher.Progress? = nil
    ) async throws(ShieldError) -> Int64 {
        try await protect(e3dbFile: source, decryptingWithAnyOf: [accessKey], to: destination, progress: progress)
    }

    /// ``protect(e3dbFile:decryptingWith:to:progress:)`` for a file sealed under one of `accessKeys` (a type's key
    /// generations, newest first).
    @discardableResult
    public func protect(
        e3dbFile source: URL,
        decryptingWithAnyOf accessKeys: [AccessKey],
        to destination: URL,
        progress: FileCipher.Progress? = nil
    ) async throws(ShieldError) -> Int64 {
        do {
            return try await FileCipher.reencrypt(
                contentsOf: source,
                decryptingWithAnyOf: accessKeys,
                to: destination,
                encryptingWith: key,
                progress: progress
            )
        } catch {
            throw Self.mapped(error)
        }
    }

    /// The magic that starts a protected small secret.
    static let magic = Data("SRP1".utf8)
    private static let associatedData = Data("strongroom.protector.v1".utf8)

    /// A small secret (an API token, a password; at most 16 MiB) encrypted under the key.
    public func protect(_ data: some DataProtocol) throws(ShieldError) -> Data {
        guard data.count <= 16 << 20 else { throw ShieldError(.invalidParameters, "protect(_:) takes at most 16 MiB") }
        do {
            let sealed = try XChaCha20Poly1305.seal(
                SecureBytes(copying: data),
                key: key.rawRepresentation,
                associatedData: Self.associatedData
            )
            return Self.magic + sealed
        } catch {
            throw Self.mapped(error)
        }
    }

    /// A small secret back from ``protect(_:)``, in a buffer wiped when released.
    ///
    /// - Throws: ``ShieldError/Code/invalidFormat`` (not protected data), ``ShieldError/Code/truncated``,
    ///   ``ShieldError/Code/authenticationFailed`` (altered, or another key).
    public func unprotect(_ data: some DataProtocol) throws(ShieldError) -> SecureBytes {
        let bytes = Data(data)
        guard bytes.count <= (16 << 20) + 64 else {
            throw ShieldError(.invalidFormat, "too large to be a small secret")
        }
        guard bytes.starts(with: Self.magic) else { throw ShieldError(.invalidFormat, "not a protected secret") }
        do {
            return try XChaCha20Poly1305.open(
                bytes.dropFirst(Self.magic.count),
                key: key.rawRepresentation,
                associatedData: Self.associatedData
            )
        } catch {
            throw Self.mapped(error)
        }
    }

    private static func mapped(_ error: CryptoError) -> ShieldError {
        let code: ShieldError.Code =
            switch error.code {
            case .authenticationFailed: .authenticationFailed
            case .truncated: .truncated
            case .invalidFormat, .unsupportedVersion: .invalidFormat
            case .cancelled: .cancelled
            case .io: .io
            case .exists: .exists
            default: .invalidParameters
            }
        return ShieldError(code, error.message, underlying: error)
    }
}
