// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A kind of keychain item. The five classes are phantom types for ``ItemQuery``: each query's attributes exist
/// only on its class, so asking a key for its `service` does not compile.
public protocol ItemClass: Sendable {
    /// The stored class name.
    static var name: String { get }
}

/// The classes whose items hold a secret as bytes: ``GenericPassword`` and ``InternetPassword``, which store,
/// update and retrieve alike.
public protocol PasswordClass: ItemClass {}

/// A password or other secret for a service and account (`kSecClassGenericPassword`).
public enum GenericPassword: PasswordClass {
    public static let name = "genp"
}

/// A password for a web protection space: host, port, protocol (`kSecClassInternetPassword`).
public enum InternetPassword: PasswordClass {
    public static let name = "inet"
}

/// A cryptographic key (`kSecClassKey`): swift-crypto keys, Strongroom's keys, symmetric keys.
public enum SecKey: ItemClass {
    public static let name = "keys"
}

/// An X.509 certificate (`kSecClassCertificate`).
public enum SecCertificate: ItemClass {
    public static let name = "cert"
}

/// A certificate with its private key (`kSecClassIdentity`).
public enum SecIdentity: ItemClass {
    public static let name = "idnt"
}
