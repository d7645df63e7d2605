// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto

extension StrongroomBenchmarks {
    /// Post-quantum access-key wraps (``HybridAccessKeyWrap``, X-Wing HPKE signed with Ed25519) beside the classical
    /// EAK (`crypto_box` through ``EncryptedAccessKey``) in the same run: wraps and unwraps per second, bytes per reader
    /// on the wire, and a share to 1,000 readers.
    static func hybridWrapBenchmarks() throws {
        let key = AccessKey()
        let authorizer = ClientKeys.generate()
        let reader = ClientKeys.generate()
        let hybridReader = HybridPrivateKey()
        let context = HybridAccessKeyWrap.Context(
            writerID: UUID(),
            userID: UUID(),
            readerID: UUID(),
            type: "notes",
            generation: 2
        )
        let classical = opsPerSecond(iterations: 4_000) {
            _ = key.sealed(to: reader.encryptionKey.publicKey, by: authorizer.encryptionKey)
        }
        let eak = key.sealed(to: reader.encryptionKey.publicKey, by: authorizer.encryptionKey)
        let classicalOpen = try opsPerSecond(iterations: 4_000) {
            _ = try eak.open(
                authorizerPublicKey: authorizer.encryptionKey.publicKey,
                readerPrivateKey: reader.encryptionKey
            )
        }
        let hybrid = try opsPerSecond(iterations: 1_000) {
            _ = try HybridAccessKeyWrap(
                sealing: key,
                to: hybridReader.publicKey,
                context: context,
                signedBy: authorizer.signingKey
            )
        }
        let wrap = try HybridAccessKeyWrap(
            sealing: key,
            to: hybridReader.publicKey,
            context: context,
            signedBy: authorizer.signingKey
        )
        let hybridOpen = try opsPerSecond(iterations: 1_000) {
            _ = try wrap.open(with: hybridReader, context: context, authorizer: authorizer.signingKey.publicKey)
        }
        row(
            "hybrid wrap (X-Wing + Ed25519)",
            ours: hybrid,
            anchor: classical,
            unit: "op/s",
            anchorLabel: "crypto_box EAK"
        )
        row(
            "hybrid unwrap (verify + decap)",
            ours: hybridOpen,
            anchor: classicalOpen,
            unit: "op/s",
            anchorLabel: "crypto_box EAK open"
        )
        print(
            "bytes per reader on the wire: hybrid \(wrap.wireFormat.utf8.count) characters "
                + "(\(HybridAccessKeyWrap.byteCount) bytes), classical \(eak.wireFormat.utf8.count) characters (72 bytes)"
        )
        let readers = (0..<1_000).map { _ in HybridPrivateKey().publicKey }
        let clock = ContinuousClock()
        let share = try clock.measure {
            for readerKey in readers {
                _ = try HybridAccessKeyWrap(
                    sealing: key,
                    to: readerKey,
                    context: context,
                    signedBy: authorizer.signingKey
                )
            }
        }
        let classicalReaders = (0..<1_000).map { _ in EncryptionPrivateKey().publicKey }
        let classicalShare = clock.measure {
            for readerKey in classicalReaders { _ = key.sealed(to: readerKey, by: authorizer.encryptionKey) }
        }
        print(
            String(
                format: "a key sealed to 1,000 readers: hybrid %.3f s (%.2f MB), classical %.3f s (%.2f MB)",
                share.seconds,
                Double(wrap.wireFormat.utf8.count * 1_000) / 1e6,
                classicalShare.seconds,
                Double(eak.wireFormat.utf8.count * 1_000) / 1e6
            )
        )
    }
}
