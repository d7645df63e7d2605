// Strongroom — SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import StrongroomCore
import StrongroomTesting
import StrongroomTransport
import SwiftASN1
import Testing
import X509

/// Trust configuration from text: PEM bundles and pins, with typed errors for anything else.
@Suite struct ServerTrustTests {
    /// A self-signed CA certificate named `name`, and its key.
    static func certificate(_ name: String) throws -> (Certificate, P256.Signing.PrivateKey) {
        let root = try TestPKI(referenceTime: Date(timeIntervalSince1970: 1_800_000_000), rootName: name).root
        return (root.certificate, root.key)
    }

    @Test("a PEM bundle of two certificates gives two roots; garbage and empty text are typed errors")
    func pemBundles() throws {
        let (first, _) = try Self.certificate("root one")
        let (second, _) = try Self.certificate("root two")
        let bundle = try first.serializeAsPEM().pemString + "\n" + second.serializeAsPEM().pemString
        guard case .certificates(let roots) = try ServerTrust.roots(pemBundle: bundle) else {
            Issue.record("not custom roots")
            return
        }
        #expect(roots == [first, second])
        for text in ["", "not pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"] {
            let error = #expect(throws: TransportError.self) { try ServerTrust.roots(pemBundle: text) }
            #expect(error?.code == .invalidConfiguration)
        }
    }

    @Test("a pin is base64 of 32 bytes (sha256/ prefix allowed) and equals the certificate's SPKI digest")
    func pins() throws {
        let (certificate, key) = try Self.certificate("leaf")
        let pin = try PublicKeyPin(certificate: certificate)
        let spki = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
        #expect(pin.description == spki)
        #expect(PublicKeyPin(base64: spki) == pin)
        #expect(PublicKeyPin(base64: "sha256/" + spki) == pin)
        for text in ["", "AAAA", String(repeating: "A", count: 44), "sha256/"] {
            #expect(PublicKeyPin(base64: text) == nil, "\(text)")
        }
    }

    @Test("default options use system trust; attempts are at least one")
    func options() {
        #expect(TransportOptions().serverTrust == .system)
        #expect(TransportOptions(maximumAttempts: 0).maximumAttempts == 1)
        #expect(TransportError(.timedOut, "x") == TransportError(.timedOut, "y"))
        #expect("\(TransportError(.unreachable, "no route"))" == "TransportError.unreachable: no route")
    }

    @Test("a trust survives its JSON form; other formats, bad pins, bad roots and oversize documents are refused")
    func jsonRepresentation() throws {
        let (root, _) = try Self.certificate("root one")
        let pin = try #require(PublicKeyPin(base64: "vxK9Vw0IMoNT7sw7B3uckHBK2sj9lrzx54XCaOyFnpI="))
        let backup = try PublicKeyPin(certificate: root)
        let trust = ServerTrust(
            roots: .certificates([root]),
            pins: [pin],
            hostPins: ["api.example": [pin, backup], "files.example": [backup]]
        )
        #expect(try ServerTrust(jsonRepresentation: try trust.jsonRepresentation()) == trust)
        #expect(try ServerTrust(jsonRepresentation: try ServerTrust.system.jsonRepresentation()) == .system)
        // The encoding is stable (sorted keys and pins), so a saved item compares byte for byte.
        #expect(try trust.jsonRepresentation() == (try trust.jsonRepresentation()))

        func refused(_ json: String) -> Bool {
            (try? ServerTrust(jsonRepresentation: Data(json.utf8))) == nil
        }
        let format = "\"format\":\"strongroom.server-trust.v1\""
        #expect(!refused("{\(format),\"roots\":\"system\"}"))
        #expect(refused("{\"roots\":\"system\"}"))
        #expect(refused("{\"format\":\"other\",\"roots\":\"system\"}"))
        #expect(refused("{\(format),\"roots\":\"everything\"}"))
        #expect(refused("{\(format),\"roots\":[]}"))
        #expect(refused("{\(format),\"roots\":[\"-----BEGIN CERTIFICATE-----\\nAAAA\\n-----END CERTIFICATE-----\"]}"))
        #expect(refused("{\(format),\"roots\":\"system\",\"pins\":[\"short\"]}"))
        #expect(refused("{\(format),\"roots\":\"system\",\"pins\":\"\(pin)\"}"))
        #expect(refused("{\(format),\"roots\":\"system\",\"host_pins\":{\"\":[\"\(pin)\"]}}"))
        let many = Array(repeating: "\"\(pin)\"", count: 65).joined(separator: ",")
        #expect(refused("{\(format),\"roots\":\"system\",\"pins\":[\(many)]}"))
        #expect(refused("[1,2,3]"))
        let error = #expect(throws: TransportError.self) {
            try ServerTrust(jsonRepresentation: Data(repeating: 0x20, count: (1 << 20) + 1))
        }
        #expect(error?.code == .invalidConfiguration)
    }
}
