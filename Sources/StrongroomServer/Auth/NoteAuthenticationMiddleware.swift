// Strongroom — SPDX-License-Identifier: Apache-2.0
import Hummingbird
import StrongroomCrypto

/// Notes take TSV1 only. The caller is identified by its key; `uid:` may be empty (anonymous), and when it is
/// not, it must name a registered client whose signing key signed the request. Over mutual TLS the connection's
/// certificate is checked as on every other route (valid, unrevoked, and naming the signer when the signer is a
/// client).
struct NoteAuthenticationMiddleware: RouterMiddleware {
    typealias Context = StrongroomRequestContext

    let signatures: TSV1Verifier
    let certificates: ClientCertificateCheck

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix(TSV1.scheme) else {
            throw ServerError.unauthorized("notes need a TSV1 signature")
        }
        let signer = try await signatures.verify(header, for: request, context: context, allowsAnonymous: true)
        var context = context
        context.clientID = signer.clientID
        context.signerKey = signer.publicKey
        try await certificates.check(caller: signer.clientID, context: context)
        return try await next(request, context)
    }
}
