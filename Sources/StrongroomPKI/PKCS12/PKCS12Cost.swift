// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import SwiftASN1

/// What a PKCS#12 file asks its reader to do, read from its unencrypted structure before any key is derived: the
/// iteration count of every key derivation it names (the MAC's, each encrypted content's and each shrouded key
/// bag's) and how many bags it holds. A file chooses these numbers, so ``PKCS12/import(_:passphrase:)`` checks them
/// against fixed limits first.
///
/// The scan walks the BER tree (PKCS#12 allows BER) and descends into OCTET STRINGs that hold DER, as the
/// authenticated safe and plain SafeContents do; it visits at most ``maximumNodes`` nodes. What is inside an
/// encrypted SafeContents cannot be seen before decryption: BoringSSL reads at most one private key from it (a
/// second is an error before it is derived) and caps its iterations at 10⁸ itself.
struct PKCS12Cost: Equatable {
    /// The iteration count of each key derivation, in file order (the MAC first).
    var derivations: [Int] = []
    /// SafeBags seen (certificate, key, shrouded key, CRL, secret and nested safe-contents bags).
    var bags = 0

    /// The most ASN.1 nodes the scan visits; a larger structure is refused as too expensive.
    static let maximumNodes = 20_000

    /// PKCS#12's `pkcs-12PbeIds` arc (1.2.840.113549.1.12.1): every PBE algorithm of PKCS#12 itself.
    private static let pkcs12PBE: [UInt] = [1, 2, 840, 113_549, 1, 12, 1]
    /// PKCS#5 v1.5 PBES1 algorithms (1.2.840.113549.1.5.1 to .11, PBKDF2 and PBES2 excepted).
    private static let pkcs5: [UInt] = [1, 2, 840, 113_549, 1, 5]
    /// PBKDF2 (1.2.840.113549.1.5.12), inside PBES2's parameters (PBES2's own identifier needs no match: its
    /// derivation is this PBKDF2).
    private static let pbkdf2: [UInt] = [1, 2, 840, 113_549, 1, 5, 12]
    /// PKCS#12's bag types (1.2.840.113549.1.12.10.1).
    private static let bagTypes: [UInt] = [1, 2, 840, 113_549, 1, 12, 10, 1]

    /// Scans `bytes`.
    ///
    /// - Throws: ``PKIError/Code/invalidEncoding`` for bytes that are not a PKCS#12 `PFX`;
    ///   ``PKIError/Code/tooExpensive`` past ``maximumNodes``.
    init(scanning bytes: [UInt8]) throws(PKIError) {
        let pfx: ASN1Node
        do {
            pfx = try BER.parse(bytes)
        } catch {
            throw PKIError(.invalidEncoding, "the bytes are not a PKCS#12 file", underlying: error)
        }
        guard case .constructed(let parts) = pfx.content else {
            throw PKIError(.invalidEncoding, "the bytes are not a PKCS#12 file")
        }
        var visited = 0
        let children = Array(parts)
        // PFX ::= SEQUENCE { version, authSafe ContentInfo, macData MacData OPTIONAL }
        if children.count == 3, case .constructed(let macData) = children[2].content {
            // MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
            let fields = Array(macData)
            derivations.append(fields.count >= 3 ? try Self.integer(fields[2]) : 1)
        }
        for child in children.prefix(2) { try scan(child, visited: &visited) }
    }

    /// Adds what `node` and its descendants ask for.
    private mutating func scan(_ node: ASN1Node, visited: inout Int) throws(PKIError) {
        visited += 1
        guard visited <= Self.maximumNodes else {
            throw PKIError(.tooExpensive, "the PKCS#12 file's structure is larger than this library reads")
        }
        switch node.content {
        case .primitive(let bytes):
            // An OCTET STRING (universal or as a [0] content) may hold the DER of the next level.
            guard node.identifier == .octetString || node.identifier.tagClass == .contextSpecific,
                bytes.first == 0x30, let inner = try? BER.parse(bytes)  // not DER: ciphertext or a plain value
            else { return }
            try scan(inner, visited: &visited)
        case .constructed(let collection):
            let children = Array(collection)
            // Not an OID-led sequence: not a bag this bound counts.
            if let first = children.first, let oid = try? ASN1ObjectIdentifier(derEncoded: first.encodedBytes) {
                let arcs = Array(oid.oidComponents)
                if arcs.starts(with: Self.bagTypes), arcs.count == Self.bagTypes.count + 1 {
                    bags += 1
                } else if arcs == Self.pbkdf2 || Self.isPBES1(arcs) {
                    // Both parameter shapes start { salt OCTET STRING, iterations INTEGER, … }.
                    if children.count >= 2, case .constructed(let parameters) = children[1].content {
                        let fields = Array(parameters)
                        guard fields.count >= 2 else {
                            throw PKIError(.invalidEncoding, "a PKCS#12 key derivation has no iteration count")
                        }
                        derivations.append(try Self.integer(fields[1]))
                    }
                }
            }
            for child in children { try scan(child, visited: &visited) }
        }
    }

    /// Whether `arcs` names a PBE algorithm whose parameters are `{ salt, iterations }` (PKCS#12's or PBES1).
    private static func isPBES1(_ arcs: [UInt]) -> Bool {
        if arcs.starts(with: pkcs12PBE), arcs.count == pkcs12PBE.count + 1 { return true }
        guard arcs.starts(with: pkcs5), arcs.count == pkcs5.count + 1, let last = arcs.last else { return false }
        return (1...11).contains(last)
    }

    /// A non-negative INTEGER that fits in `Int`; anything else (negative, huge, not an INTEGER) is refused.
    private static func integer(_ node: ASN1Node) throws(PKIError) -> Int {
        guard let value = try? Int(derEncoded: node), value >= 0 else {
            throw PKIError(.tooExpensive, "a PKCS#12 iteration count is not a number this library accepts")
        }
        return value
    }
}
