// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import PropertyBased
import StrongroomCore
import StrongroomCrypto
import Testing

/// The TSV1 header parser and verifier take any text a caller sends: they return or throw a typed error, never
/// trap, and every timestamp an `Int64` can hold is safely inside or outside the window.
@Suite struct TSV1FuzzTests {
    static let key = SigningPrivateKey()
    static let signature = Base64URL.encode(Data(repeating: 1, count: 64))

    /// Header-like text: the scheme, then random parts, separators and numbers.
    static let headerText = Gen.oneOf(
        Gen.latin1.string(of: 0...700),
        Gen.element(of: ["; ", ";", " ", "uid:", "-", "9223372036854775807", "-9223372036854775808", "0", "n", "="])
            .map { $0 ?? "" }
            .array(of: 0...40)
            .map { TSV1.scheme + "; " + $0.joined() }
    )

    @Test("random header text never traps the parser")
    func parserNeverTraps() async {
        await propertyCheck(count: 2000, input: Self.headerText) { text in
            do {
                let header = try TSV1.Header(parsing: text)
                #expect(header.nonce.utf8.count <= TSV1.Header.maximumNonceLength)
                #expect(text.utf8.count <= TSV1.Header.maximumLength)
            } catch let error as CryptoError {
                #expect(error.code == .invalidFormat)
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }

    @Test("any Int64 timestamp is inside or outside the window, never an overflow")
    func timestampsNeverTrap() async {
        let timestamps = Gen.oneOf(
            Gen.int64(),
            Gen.element(of: [Int64.min, Int64.max, Int64.min + 1, Int64.max - 1, 0, -1]).map { $0 ?? 0 }
        )
        await propertyCheck(count: 2000, input: timestamps) { timestamp in
            let text =
                "\(TSV1.scheme); \(Self.key.publicKey.base64URLEncoded); \(timestamp); n; uid:; \(Self.signature)"
            let now = Date()
            do {
                _ = try TSV1.verify(text, for: .init(method: "GET", path: "/"), now: now)
                Issue.record("a forged signature verified")
            } catch let error as CryptoError {
                let inWindow = abs(Double(timestamp) - now.timeIntervalSince1970) <= 299
                #expect(error.code == (inWindow ? .invalidSignature : .expired), "\(timestamp)")
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }
}
