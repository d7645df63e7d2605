// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
public import Foundation
import StrongroomCore
public import StrongroomCrypto

/// The SHA-256 of each of an app's executables, signed with Ed25519 at build time: the reference for T.A.K's
/// repackaging check. The app ships the manifest and embeds the signer's public key; ``ExecutableCheck``
/// compares the running executable against it.
public struct ExecutableManifest: Sendable, Hashable, Codable {
    /// File name (the last path component) → lowercase hex SHA-256.
    public var digests: [String: String]
    /// When it was made (Unix seconds).
    public var issuedAt: Int64

    /// Creates a manifest.
    public init(digests: [String: String], issuedAt: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.digests = digests
        self.issuedAt = issuedAt
    }

    /// A manifest of `executables`, each under its file name.
    ///
    /// - Throws: ``ShieldError/Code/io`` when one cannot be read.
    public init(executables: [URL]) throws(ShieldError) {
        var digests: [String: String] = [:]
        for url in executables { digests[url.lastPathComponent] = try Self.digest(of: url) }
        self.init(digests: digests)
    }

    /// The lowercase hex SHA-256 of a file, read in 1 MiB pieces.
    ///
    /// - Throws: ``ShieldError/Code/io``.
    public static func digest(of url: URL) throws(ShieldError) -> String {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw ShieldError(.io, "\(url.path) cannot be read")
        }
        // Read-only: closing cannot lose anything.
        defer { try? handle.close() }
        var hash = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        } catch {
            throw ShieldError(.io, "\(url.path) cannot be read", underlying: error)
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// This manifest signed with `key`.
    public func signed(with key: SigningPrivateKey) -> SignedExecutableManifest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let body = (try? encoder.encode(self)) ?? Data()  // plain values: encoding cannot fail
        return SignedExecutableManifest(body: body, signature: key.signature(for: body))
    }
}

/// An ``ExecutableManifest`` with its Ed25519 signature, as shipped: `{"manifest": base64url, "signature":
/// base64url}`.
public struct SignedExecutableManifest: Sendable, Hashable {
    /// The manifest's JSON, exactly as signed.
    public let body: Data
    /// The Ed25519 signature over ``body``.
    public let signature: Data

    /// Wraps a body and its signature.
    public init(body: Data, signature: Data) {
        self.body = body
        self.signature = signature
    }

    /// The manifest, once its signature verifies with `signer`.
    ///
    /// - Throws: ``ShieldError/Code/invalidManifest`` when it does not, ``ShieldError/Code/invalidFormat`` when
    ///   the body is not a manifest.
    public func verified(with signer: SigningPublicKey) throws(ShieldError) -> ExecutableManifest {
        guard signer.isValidSignature(signature, for: body) else {
            throw ShieldError(.invalidManifest, "the manifest's signature does not verify with the app's key")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            let manifest = try decoder.decode(ExecutableManifest.self, from: body)
            guard manifest.digests.count <= 4096 else {
                throw ShieldError(.invalidFormat, "the manifest lists more than 4096 files")
            }
            return manifest
        } catch let error as ShieldError {
            throw error
        } catch {
            throw ShieldError(.invalidFormat, "the manifest is not valid JSON", underlying: error)
        }
    }

    /// The shipped form: JSON with the body and signature in base64url.
    public func jsonRepresentation() -> Data {
        let text = #"{"manifest":"\#(Base64URL.encode(body))","signature":"\#(Base64URL.encode(signature))"}"#
        return Data((text + "\n").utf8)
    }

    /// Reads the shipped form (at most 1 MiB).
    ///
    /// - Throws: ``ShieldError/Code/invalidFormat``.
    public init(jsonRepresentation data: Data) throws(ShieldError) {
        struct Shipped: Decodable {
            let manifest: String
            let signature: String
        }
        guard data.count <= 1 << 20 else { throw ShieldError(.invalidFormat, "the manifest is larger than 1 MiB") }
        guard let shipped = try? JSONDecoder().decode(Shipped.self, from: data),
            let body = try? Base64URL.decode(shipped.manifest),
            let signature = try? Base64URL.decode(shipped.signature)
        else {
            throw ShieldError(.invalidFormat, "not a signed executable manifest")
        }
        self.init(body: body, signature: signature)
    }
}
