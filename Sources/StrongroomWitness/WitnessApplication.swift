// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import Hummingbird
package import Logging
import NIOCore
import StrongroomCore
import StrongroomCrypto

/// A key log witness's HTTP service (`strongroom-server witness serve`): `POST /add-checkpoint` as C2SP
/// `tlog-witness` defines it, and `GET /health`. Requests carry no credentials: a checkpoint is accepted only when
/// the log's key signed it and it extends the one the witness cosigned last.
package func buildWitnessApplication(
    witness: KeyLogWitness,
    host: String,
    port: Int,
    portFile: String?,
    logger: Logger
) -> some ApplicationProtocol {
    let router = Router(context: BasicRequestContext.self)
    router.get("/health") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
    router.post("/add-checkpoint") { request, _ -> Response in
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: KeyLogWitness.maximumRequestBytes)
        } catch {
            return Response(status: .contentTooLarge)
        }
        let answer = await witness.addCheckpoint(String(buffer: body))
        var headers = HTTPFields()
        headers[.contentType] = answer.contentType
        return Response(
            status: .init(code: answer.status),
            headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: answer.body))
        )
    }
    return Application(
        router: router,
        configuration: .init(address: .hostname(host, port: port), serverName: "strongroom-witness"),
        onServerRunning: { channel in
            guard let bound = channel.localAddress?.port else { return }
            logger.notice("witness \(witness.cosigner.key.name) serving http://\(host):\(bound)")
            if let portFile { try? AtomicFile.write(Data("\(bound)\n".utf8), to: portFile) }
        },
        logger: logger
    )
}
