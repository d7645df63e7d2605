// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomServerTesting
import StrongroomWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A minimal HTTP client over URLSession, for servers in other processes.
struct HTTP: Sendable {
    struct Client: Sendable {
        var id: String
        var apiKeyID: String
        var apiSecret: String
        var token: String
        var keys: ClientKeys
    }

    let base: String

    func send(
        _ method: String,
        _ path: String,
        token: String? = nil,
        authorization: String? = nil,
        json: (some Encodable)?
    ) async throws -> (Int, Data) {
        let authorization = token.map { "Bearer \($0)" } ?? authorization
        return try await send(
            method,
            path,
            authorization: authorization,
            body: try json.map { try JSONEncoder().encode($0) }
        )
    }

    /// Sends `body` as is (a file body to a presigned URL; `path` may hold a query and starts with `/`).
    func send(_ method: String, _ path: String, authorization: String? = nil, body: Data?) async throws -> (Int, Data) {
        guard let url = URL(string: base + path) else { throw TestFailure("bad URL") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Writes a record of `type` holding `fields` encrypted under `key`: its ID and the ciphertext sent on 201, nil on
    /// any other answer or when the server cannot be reached (crash tests write until it dies).
    func writeEncrypted(
        _ fields: [String: String],
        type: String,
        key: AccessKey,
        as client: Client
    ) async -> (id: String, data: [String: String])? {
        let data = FieldCipher.encrypt(fields: fields, with: key)
        let body = RecordWriteRequest(
            meta: .init(writerID: client.id, userID: client.id, type: type, plain: nil),
            data: data
        )
        guard let (status, response) = try? await send("POST", "/v1/storage/records", token: client.token, json: body),
            status == 201,
            let record = try? JSONDecoder().decode(RecordResponse.self, from: response)
        else { return nil }
        return (record.meta.recordID, data)
    }

    func register(token: String) async throws -> Client {
        let keys = ClientKeys.generate()
        let registration = RegistrationRequest(
            token: token,
            client: .init(
                name: "crash",
                publicKey: .init(curve25519: keys.encryptionKey.publicKey.base64URLEncoded),
                signingKey: .init(ed25519: keys.signingKey.publicKey.base64URLEncoded)
            )
        )
        let (status, body) = try await send("POST", "/v1/account/e3db/clients/register", json: registration)
        guard status == 201 else { throw TestFailure("registration answered \(status)") }
        let registered = try JSONDecoder().decode(RegistrationResponse.self, from: body)
        var client = Client(
            id: registered.clientID,
            apiKeyID: registered.apiKeyID,
            apiSecret: registered.apiSecret,
            token: "",
            keys: keys
        )
        client.token = try await self.token(client)
        return client
    }

    func token(_ client: Client) async throws -> String {
        guard let url = URL(string: base + "/v1/auth/token") else { throw TestFailure("bad URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let basic = Data("\(client.apiKeyID):\(client.apiSecret)".utf8).base64EncodedString()
        request.setValue("Basic \(basic)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data("grant_type=client_credentials".utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONDecoder().decode(TokenResponse.self, from: data).accessToken
    }
}
