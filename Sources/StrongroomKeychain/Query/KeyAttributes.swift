// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The algorithm family of a stored key (Apple's `kSecAttrKeyType`).
public struct KeyType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The stored name.
    public var rawValue: String

    /// A key type by its stored name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// ECDSA or ECDH on a NIST curve (P-256, P-384, P-521): `kSecAttrKeyTypeECSECPrimeRandom`.
    public static let ec = KeyType(rawValue: "ec")
    /// RSA.
    public static let rsa = KeyType(rawValue: "rsa")
    /// Ed25519 signing keys.
    public static let ed25519 = KeyType(rawValue: "ed25519")
    /// X25519 key-agreement keys.
    public static let x25519 = KeyType(rawValue: "x25519")
    /// Symmetric keys (AES, ChaCha20-Poly1305, XSalsa20-Poly1305, HMAC).
    public static let symmetric = KeyType(rawValue: "symmetric")

    public var description: String { rawValue }
}

/// Which half of a key pair an item holds, or a symmetric key (Apple's `kSecAttrKeyClass`).
public enum KeyClass: String, Sendable, Hashable, CaseIterable {
    case `private`, `public`, symmetric
}

/// A key item's searchable description, recorded when the key is stored: its type, size and class.
public struct KeyAttributes: Sendable, Hashable {
    /// The algorithm family.
    public var keyType: KeyType
    /// The size in bits (the curve's field size, the RSA modulus, 256 for Curve25519, the symmetric key's length).
    public var keySizeInBits: Int
    /// Private, public or symmetric.
    public var keyClass: KeyClass

    /// Describes a key.
    public init(keyType: KeyType, keySizeInBits: Int, keyClass: KeyClass) {
        self.keyType = keyType
        self.keySizeInBits = keySizeInBits
        self.keyClass = keyClass
    }

    /// The attributes of a key of a built-in kind (`curve25519.signing`, `p384.keyagreement`, `strongroom.x25519`…),
    /// or nil for a kind whose size is not fixed by its name.
    init?(kind: String) {
        if kind.hasSuffix(".public"), kind.count > 7 {
            guard let privateHalf = KeyAttributes(kind: String(kind.dropLast(7))), privateHalf.keyClass == .private
            else { return nil }
            self.init(keyType: privateHalf.keyType, keySizeInBits: privateHalf.keySizeInBits, keyClass: .public)
            return
        }
        switch kind {
        case "curve25519.signing", "strongroom.ed25519":
            self.init(keyType: .ed25519, keySizeInBits: 256, keyClass: .private)
        case "curve25519.keyagreement", "strongroom.x25519":
            self.init(keyType: .x25519, keySizeInBits: 256, keyClass: .private)
        case "p256.signing", "p256.keyagreement": self.init(keyType: .ec, keySizeInBits: 256, keyClass: .private)
        case "p384.signing", "p384.keyagreement": self.init(keyType: .ec, keySizeInBits: 384, keyClass: .private)
        case "p521.signing", "p521.keyagreement": self.init(keyType: .ec, keySizeInBits: 521, keyClass: .private)
        case "strongroom.accesskey": self.init(keyType: .symmetric, keySizeInBits: 256, keyClass: .symmetric)
        default: return nil
        }
    }

    /// The form kept in ``ItemInfo/attributes``.
    var stored: [String: String] {
        ["keyType": keyType.rawValue, "keySizeInBits": String(keySizeInBits), "keyClass": keyClass.rawValue]
    }

    /// Reads the form kept in ``ItemInfo/attributes``.
    init?(stored: [String: String]) {
        guard let type = stored["keyType"], let size = stored["keySizeInBits"].flatMap({ Int($0) }),
            let keyClass = stored["keyClass"].flatMap(KeyClass.init(rawValue:))
        else { return nil }
        self.init(keyType: KeyType(rawValue: type), keySizeInBits: size, keyClass: keyClass)
    }
}

extension ItemInfo {
    /// A key item's type, size and class, or nil for other items (and keys stored before they were recorded).
    public var keyAttributes: KeyAttributes? { KeyAttributes(stored: attributes) }
}
