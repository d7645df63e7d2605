// Strongroom — SPDX-License-Identifier: Apache-2.0

import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension SigningPrivateKey {
    /// An Ed25519 signature of the document's ``Signable/canonicalSerialization`` (its UTF-8 bytes).
    ///
    /// Unlike e3db-swift, the message is always the UTF-8 text: it is never base64-decoded first, so signing and
    /// verifying derive the same bytes by construction.
    public func signature(for document: some Signable) -> Data {
        signature(for: Array(document.canonicalSerialization.utf8))
    }
}

extension SigningPublicKey {
    /// Verifies an Ed25519 signature over the document's canonical serialization.
    ///
    /// - Throws: ``CryptoError/Code/invalidSignature`` when it does not verify.
    public func verify(_ signature: Data, for document: some Signable) throws(CryptoError) {
        guard isValidSignature(signature, for: Array(document.canonicalSerialization.utf8)) else {
            throw CryptoError(.invalidSignature, "the document signature does not verify")
        }
    }
}

/// A document and its signature, as e3db-swift's `SignedDocument`.
public struct SignedDocument<Document: Signable>: Sendable {
    /// The signed document.
    public var document: Document
    /// The Ed25519 signature of its canonical serialization.
    public var signature: Data

    /// Signs `document` with `key`.
    public init(signing document: Document, with key: SigningPrivateKey) {
        self.document = document
        self.signature = key.signature(for: document)
    }

    /// Pairs a document with a signature received from elsewhere.
    public init(document: Document, signature: Data) {
        self.document = document
        self.signature = signature
    }

    /// Verifies the signature with the signer's public key.
    ///
    /// - Throws: ``CryptoError/Code/invalidSignature`` when it does not verify.
    public func verify(with publicKey: SigningPublicKey) throws(CryptoError) {
        try publicKey.verify(signature, for: document)
    }
}

/// A signed document is signable in turn (a countersignature), serialized as e3db-swift does:
/// `{"doc":<the document>,"sig":"<base64url signature>"}`, where a document of several components (a record's
/// meta and data) appears as the string of its canonical serialization.
extension SignedDocument: Signable {
    public var signableComponents: [SignableValue] {
        let components = document.signableComponents
        let inner: SignableValue = components.count == 1 ? components[0] : .string(document.canonicalSerialization)
        return [.object(["doc": inner, "sig": .string(Base64URL.encode(signature))])]
    }
}
