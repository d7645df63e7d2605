// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Logging
import NIOCore
import NIOSSL
import StrongroomPKI
import SwiftASN1
import X509

/// Whether TLS clients must present a certificate.
public enum ClientCertificateMode: String, Sendable, Hashable, CaseIterable {
    /// A client may present one; a presented certificate must verify and must belong to the caller.
    case optional
    /// Every connection presents one: a request without it never reaches a route.
    case required
}

/// Checks client certificates during the handshake. The callback replaces all of BoringSSL's checks, so this
/// does every one: the chain to the configured CA, validity, EKU clientAuth, and revocation in the database (so a
/// revoked certificate never completes a handshake; ``AuthenticationMiddleware`` also checks per request).
///
/// Only the leaf the client sends is used: intermediates it sends are ignored, and the leaf must chain to the
/// configured CA certificates (`--tls-client-ca`, which must therefore hold every CA that issues client
/// certificates). Path building then runs over certificates the operator chose, so a handshake costs one parse and
/// a few signature checks whatever the client sends (a chain of self-made intermediates that all issue each other
/// once cost factorial time here).
struct ClientCertificateVerifier: Sendable {
    let anchors: [Certificate]
    let store: any CertificateStore
    let clock: ServerClock
    let logger: Logger

    func verify(_ presented: [NIOSSLCertificate]) async -> NIOSSLVerificationResult {
        do {
            guard let leaf = MutualTLS.presentedLeaf(presented) else {
                logger.info(
                    "client certificate refused",
                    metadata: [
                        "reason": .string("\(presented.count) certificates presented, or a leaf that does not parse")
                    ]
                )
                return .failed
            }
            let validator = ChainValidator(anchors: anchors)
            _ = try await validator.validate(leaf, purpose: .clientAuth, at: clock.now)
            if let stored = try await store.certificate(serial: leaf.serialNumber.hexString), stored.isRevoked {
                logger.info(
                    "client certificate refused: revoked",
                    metadata: ["serial": .string(stored.serial), "client": .string(stored.clientID)]
                )
                return .failed
            }
            return .certificateVerified
        } catch {
            logger.info("client certificate refused", metadata: ["reason": .string("\(error)")])
            return .failed
        }
    }
}

/// What the verified TLS client certificate of a connection says about the caller.
enum CertifiedClient: Sendable, Equatable {
    /// No certificate was presented (or the listener is not TLS).
    case none
    /// The certificate names this client (`urn:strongroom:client:<id>`).
    case client(String)
    /// The certificate verified but names no Strongroom client.
    case unnamed
}

extension CertifiedClient {
    /// What `certificate` names: one client through its `urn:strongroom:client:` URI, or none.
    init(_ certificate: Certificate?) {
        guard let certificate else {
            self = .none
            return
        }
        self = ClientCertificateName.clientID(of: certificate).map(CertifiedClient.client) ?? .unnamed
    }
}

extension StrongroomRequestContext {
    /// The connection's TLS client certificate (verified during the handshake), or nil.
    func peerCertificate() async -> Certificate? {
        // No certificate, or one that does not parse: the connection has no client certificate.
        guard let presented = try? await channel.nioSSL_peerCertificate().get() else { return nil }
        return try? Certificate(derEncoded: try presented.toDERBytes())
    }

    /// The client the connection's certificate names.
    func certifiedClient() async -> CertifiedClient { CertifiedClient(await peerCertificate()) }
}
