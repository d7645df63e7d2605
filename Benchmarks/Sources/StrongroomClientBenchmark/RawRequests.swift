// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrongroomClient

/// The anchors under the SDK's record reads: the same server asked with bare HTTP (AsyncHTTPClient's shared client,
/// kept-alive connections), no encryption, signing or decoding. An SDK read can be no faster than a bare GET of the
/// same record one at a time, nor a GET of anything faster than `/health`.
enum RawRequests {
    /// A bearer token for the client, from `POST /v1/auth/token` with its API credentials.
    static func token(for configuration: Client.Configuration) async throws -> String {
        var request = HTTPClientRequest(url: configuration.apiURL.absoluteString + "/v1/auth/token")
        request.method = .POST
        let secret = configuration.apiSecret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let credentials = Data("\(configuration.apiKeyID):\(secret)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: "grant_type=client_credentials"))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok,
            let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            let token = object["access_token"] as? String
        else { throw RawRequestError(status: response.status.code) }
        return token
    }

    /// Requests per second of `count` GETs of `url`, one at a time, each body read in full.
    static func getRate(_ url: String, authorization: String?, count: Int) async throws -> Double {
        var request = HTTPClientRequest(url: url)
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        let elapsed = try await ContinuousClock().measure {
            for _ in 0..<count {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 24)
                guard response.status == .ok else { throw RawRequestError(status: response.status.code) }
            }
        }
        return Double(count) / elapsed.seconds
    }
}

struct RawRequestError: Error {
    var status: UInt
}
