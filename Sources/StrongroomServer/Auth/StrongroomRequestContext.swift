// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Hummingbird
import NIOCore
import Synchronization

/// The request context: who the caller is, once authenticated.
public struct StrongroomRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The authenticated client's ID (lowercase UUID), set by the auth middleware. Every copy of one request's context
    /// shares it, so the request log (outside the auth middleware) sees who the caller turned out to be.
    public var clientID: String? {
        get { trace.clientID.withLock { $0 } }
        nonmutating set { trace.clientID.withLock { $0 = newValue } }
    }
    /// What outer middleware learns from inner middleware about this request.
    let trace = RequestTrace()
    /// The Ed25519 public key that signed this request (TSV1), if any.
    public var signerKey: String?
    /// The peer's IP address (no port), for rate limits and logs; `unknown` when the channel has none.
    public let sourceAddress: String
    /// The connection, for its TLS client certificate.
    let channel: any Channel

    /// Creates the context for a new request (called by Hummingbird).
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.signerKey = nil
        self.sourceAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        self.channel = source.channel
    }

    /// JSON bodies above 16 MiB are refused with 413 before they are read in full (the largest record the spec
    /// describes is about 3.1 MB of JSON). File uploads are streamed and limited to their declared size instead.
    public var maxUploadSize: Int { 16 << 20 }

    /// Records that this request writes records (or a policy) of `type`, so that a success wakes the long-polls
    /// waiting on that type (``WriteSignalMiddleware``).
    func noteWrite(of type: String) {
        trace.writtenTypes.withLock { types in
            // A request writes a few types (a bulk write: up to its record count); more than that wakes no one extra.
            if types.count < 512 { types.insert(type) }
        }
    }

    /// The caller, or a 401.
    func caller() throws -> String {
        guard let clientID else { throw ServerError.unauthorized() }
        return clientID
    }
}

/// Shared by every copy of one request's context: what the request log needs from deeper in the chain.
final class RequestTrace: Sendable {
    let clientID = Mutex<String?>(nil)
    /// The types whose records this request writes (``StrongroomRequestContext/noteWrite(of:)``).
    let writtenTypes = Mutex<Set<String>>([])
}
