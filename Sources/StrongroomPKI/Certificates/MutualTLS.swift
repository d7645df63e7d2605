// Strongroom — SPDX-License-Identifier: Apache-2.0
public import NIOSSL
import SwiftASN1
public import X509

/// What every Strongroom TLS server that asks for client certificates does the same way (the E3DB server and an
/// app's own backend through StrongroomBackend).
public enum MutualTLS {
    /// The most certificates a client's handshake may carry; the rest of a longer list is never parsed.
    public static let maximumPresented = 8

    /// The signature algorithms a server accepts from clients. BoringSSL's defaults leave Ed25519 out, and a client
    /// with an Ed25519 certificate would then send none.
    public static let clientSignatureAlgorithms: [SignatureAlgorithm] = [
        .ecdsaSecp256R1Sha256, .ecdsaSecp384R1Sha384, .ecdsaSecp521R1Sha512, .ed25519,
        .rsaPssRsaeSha256, .rsaPssRsaeSha384, .rsaPssRsaeSha512,
        .rsaPkcs1Sha256, .rsaPkcs1Sha384, .rsaPkcs1Sha512,
    ]

    /// The leaf a client presented, parsed; nil when it presented none, more than ``maximumPresented``
    /// certificates, or a leaf that does not parse. Intermediates are ignored: chains are built over the
    /// operator's anchors only.
    public static func presentedLeaf(_ presented: [NIOSSLCertificate]) -> Certificate? {
        guard let first = presented.first, presented.count <= maximumPresented else { return nil }
        return try? Certificate(derEncoded: try first.toDERBytes())
    }
}
