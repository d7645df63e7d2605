// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import SwiftASN1
import X509

extension ServerTrust {
    /// The most bytes ``init(jsonRepresentation:)`` reads, and the most roots, hosts and pins per set it accepts.
    static let encodingLimits = (bytes: 1 << 20, roots: 64, hosts: 256, pins: 64)

    /// The trust as JSON, to keep in a keychain item or a protected file and load with
    /// ``init(jsonRepresentation:)``: `{"format": "strongroom.server-trust.v1", "roots": "system" or [PEM …],
    /// "pins": [base64 …], "host_pins": {host: [base64 …]}}`, keys sorted.
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` when a root cannot be encoded.
    public func jsonRepresentation() throws(TransportError) -> Data {
        var object: [String: Any] = [
            "format": Self.format,
            "pins": pins.map(\.description).sorted(),
            "host_pins": hostPins.mapValues { $0.map(\.description).sorted() },
        ]
        switch roots {
        case .system: object["roots"] = "system"
        case .certificates(let certificates):
            do {
                object["roots"] = try certificates.map { try $0.serializeAsPEM().pemString }
            } catch {
                throw TransportError(.invalidConfiguration, "a root certificate cannot be encoded", underlying: error)
            }
        }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        } catch {
            throw TransportError(.invalidConfiguration, "the server trust cannot be encoded", underlying: error)
        }
    }

    /// The trust ``jsonRepresentation()`` wrote.
    ///
    /// - Throws: ``TransportError/Code/invalidConfiguration`` naming what is wrong: not this format, more than
    ///   1 MiB, 64 roots, 256 hosts or 64 pins per set, a root that does not parse or a pin that is not 32 bytes of
    ///   base64.
    public init(jsonRepresentation data: Data) throws(TransportError) {
        let limits = Self.encodingLimits
        guard data.count <= limits.bytes else {
            throw TransportError(.invalidConfiguration, "a server trust is at most \(limits.bytes) bytes")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["format"] as? String == Self.format
        else { throw TransportError(.invalidConfiguration, "not a \(Self.format) document") }

        var roots = Roots.system
        switch object["roots"] {
        case let text as String where text == "system": break
        case let pems as [String] where (1...limits.roots).contains(pems.count):
            do {
                roots = .certificates(try pems.map { try Certificate(pemEncoded: $0) })
            } catch {
                throw TransportError(.invalidConfiguration, "a root certificate does not parse", underlying: error)
            }
        default:
            throw TransportError(.invalidConfiguration, "roots are \"system\" or 1 to \(limits.roots) PEM certificates")
        }
        let pins = try Self.pinSet(object["pins"] ?? [String](), naming: "pins")
        guard let hosts = (object["host_pins"] ?? [String: Any]()) as? [String: Any], hosts.count <= limits.hosts
        else {
            throw TransportError(.invalidConfiguration, "host_pins maps at most \(limits.hosts) hosts to pins")
        }
        var hostPins: [String: Set<PublicKeyPin>] = [:]
        for (host, value) in hosts {
            guard !host.isEmpty, host.utf8.count <= 253 else {
                throw TransportError(.invalidConfiguration, "a host_pins host is 1 to 253 bytes")
            }
            hostPins[host] = try Self.pinSet(value, naming: "the pins of \(host)")
        }
        self.init(roots: roots, pins: pins, hostPins: hostPins)
    }

    private static let format = "strongroom.server-trust.v1"

    private static func pinSet(_ value: Any, naming what: String) throws(TransportError) -> Set<PublicKeyPin> {
        guard let texts = value as? [String], texts.count <= encodingLimits.pins else {
            throw TransportError(.invalidConfiguration, "\(what) are at most \(encodingLimits.pins) base64 strings")
        }
        var pins: Set<PublicKeyPin> = []
        for text in texts {
            guard let pin = PublicKeyPin(base64: text) else {
                throw TransportError(.invalidConfiguration, "\(what): \(text) is not base64 of 32 bytes")
            }
            pins.insert(pin)
        }
        return pins
    }
}
