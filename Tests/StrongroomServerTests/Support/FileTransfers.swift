// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import StrongroomServerTesting
import StrongroomWire
import Testing

/// The E3DB file flow by hand: a pending record, the presigned upload, the presigned download.
extension API {
    /// A pending file record declaring `body`'s size and MD5: its ID and upload URL.
    func createFile(
        as client: RegisteredClient,
        body: [UInt8],
        type: String = "blob"
    ) async throws -> PendingFileResponse {
        let md5 = Data(Insecure.MD5.hash(data: body)).base64EncodedString()
        let create = FileWriteRequest(
            meta: .init(
                writerID: client.clientID,
                userID: client.clientID,
                type: type,
                plain: [:],
                fileMeta: FileMeta(checksum: md5, compression: "raw", size: Int64(body.count))
            )
        )
        let pending = try await request(.post, "/v1/storage/files", token: client.token, json: create)
        try #require(pending.status == .accepted)
        return try JSONDecoder().decode(PendingFileResponse.self, from: Data(buffer: pending.body))
    }

    /// PUTs `body` to the presigned upload URL of `file`; the status.
    ///
    /// Uploads and downloads go through AsyncHTTPClient with ten minutes to finish: HummingbirdTesting's client gives
    /// up after 20 s without a read, which a multi-part upload to the object store can take on a busy machine (CI saw
    /// `.readTimeout`).
    func upload(_ file: PendingFileResponse, body: [UInt8]) async throws -> HTTPResponse.Status {
        let url = try #require(URLComponents(string: file.fileURL))
        var request = HTTPClientRequest(url: baseURL + url.path + "?" + (url.percentEncodedQuery ?? ""))
        request.method = .PUT
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        _ = try await response.body.collect(upTo: 1 << 20)
        return HTTPResponse.Status(code: Int(response.status.code))
    }

    /// The body served at the file's presigned download URL.
    func download(id: String, as client: RegisteredClient) async throws -> [UInt8] {
        let file = try await request(.get, "/v1/storage/files/\(id)", authorization: "Bearer \(client.token)")
        try #require(file.status == .ok)
        let record = try JSONDecoder().decode(RecordResponse.self, from: Data(buffer: file.body))
        let fileURL = try #require(record.meta.fileMeta?.fileURL)
        let url = try #require(URLComponents(string: fileURL))
        let request = HTTPClientRequest(url: baseURL + url.path + "?" + (url.percentEncodedQuery ?? ""))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        try #require(response.status == .ok)
        return Array(buffer: try await response.body.collect(upTo: 256 << 20))
    }
}
