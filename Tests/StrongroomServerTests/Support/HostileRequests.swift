// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto

#if canImport(FoundationNetworking)
import FoundationNetworking
import StrongroomServerTesting
#endif

/// Hostile inputs from the security review, and helpers to send them.
enum HostileRequests {
    /// A TSV1 header whose timestamp is `Int64.min` (it trapped `abs(now - timestamp)`).
    static func minimumTimestampHeader() -> String {
        let key = SigningPrivateKey().publicKey.base64URLEncoded
        let signature = Base64URL.encode(Data(repeating: 7, count: 64))
        return "\(TSV1.scheme); \(key); -9223372036854775808; n; uid:; \(signature)"
    }

    /// The JSON of a note written by `writer` (anonymous TSV1), with `maxViews` inserted verbatim.
    static func noteBody(writer: SigningPrivateKey, maxViews: String, idString: String = "") -> String {
        let recipient = SigningPrivateKey().publicKey.base64URLEncoded
        let encryption = EncryptionPrivateKey().publicKey.base64URLEncoded
        return """
            {"data": {"k": "v"}, "encrypted_access_key": "a.b", "recipient_signing_key": "\(recipient)",
            "writer_signing_key": "\(writer.publicKey.base64URLEncoded)", "writer_encryption_key": "\(encryption)",
            "max_views": \(maxViews), "id_string": "\(idString)", "mode": "sodium", "type": "", "plain": {},
            "expires": false}
            """
    }

    /// An anonymous TSV1 header for a note write by `writer`.
    static func anonymousNoteHeader(writer: SigningPrivateKey) -> String {
        TSV1.authorization(for: .init(method: "POST", path: "/v2/storage/notes"), clientID: "", signingKey: writer)
    }
}

extension HTTP {
    /// Sends raw text with an `Authorization` header; the status code.
    func raw(_ method: String, _ path: String, authorization: String? = nil, body: String? = nil) async throws -> Int {
        guard let url = URL(string: base + path) else { throw TestFailure("bad URL") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.httpBody = body.map { Data($0.utf8) }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// Whether `/health` answers 200 within one second.
    func isHealthyWithinOneSecond() async -> Bool {
        guard let url = URL(string: base + "/health") else { return false }
        var request = URLRequest(url: url)
        request.timeoutInterval = 1
        // A timeout or refused connection is simply "not healthy".
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200
    }
}
