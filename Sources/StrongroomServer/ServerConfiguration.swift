// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore
import StrongroomPKI
public import StrongroomWire

/// How a Strongroom server runs.
public struct ServerConfiguration: Sendable {
    /// Where the SQLite database and the token key live (created with mode 0700).
    public var dataDirectory: String
    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 picks a free one.
    public var port: Int
    /// A registration token to create at start-up if it does not exist yet (tests, first run).
    public var registrationToken: String?
    /// How long an access token lives.
    public var tokenLifetime: Duration
    /// How far a TSV1 timestamp may be from the server's clock.
    public var signatureWindow: Duration
    /// The base URL clients reach this server at, for presigned file URLs. Required when `host` is not a loopback
    /// address; on loopback the default is `http(s)://<host>:<bound port>`. The request's `Host` header is never
    /// used.
    public var publicURL: String?
    /// TLS served by the server itself (PEM files); nil serves plain HTTP, for loopback or behind a proxy.
    public var tls: ServerTLS?
    /// Bounds on what callers send and what the server keeps for them.
    public var limits: ServerLimits
    /// Connection timeouts and the connection cap.
    public var connections: ConnectionLimits
    /// A file to write the bound port to once the server listens (with `port: 0`, how a supervisor or a test
    /// learns the port without racing another process for it).
    public var portFile: String?
    /// Where the server reads the time (token expiry, TSV1 windows, timestamps, note and file expiry).
    public var clock: any WallClock
    /// How long a client certificate issued at enrollment or renewal is valid (never past the CA's own end).
    public var clientCertificateLifetime: Duration
    /// Refuse the requests of a client whose newest integrity report is at least this grade (`--refuse-integrity`);
    /// nil refuses none. The integrity routes themselves stay open, so a client can check in a better report.
    public var integrityRefusal: IntegrityVerdict?
    /// The bearer token of the admin route `GET /v1/admin/integrity`; nil disables it.
    public var adminToken: String?
    /// The 32-byte bearer-token key (it also signs presigned file URLs). Every instance serving one database must
    /// hold the same key; nil reads `STRONGROOM_TOKEN_KEY`, and without it `token.key` in the data directory.
    public var tokenKey: SecureBytes?
    /// Where file bodies live; nil picks the engine's default: ``BlobStorage/folder`` on SQLite,
    /// ``BlobStorage/database`` on PostgreSQL.
    public var blobStorage: BlobStorage?
    /// The object store for ``BlobStorage/s3`` (`ObjectStore.s3(_:)` from `StrongroomServerS3`); required with it,
    /// ignored otherwise.
    public var objectStore: ObjectStore?
    /// The folder of the client-certificate CA's files (`--ca-directory`); nil is `<data directory>/ca`. Every
    /// instance of a deployment names the same files (e.g. one secret mounted on each host).
    public var caDirectory: String?

    /// Where the CA's files are: ``caDirectory``, or `<data directory>/ca`.
    var caFolder: String { caDirectory ?? CertificateAuthority.directory(in: dataDirectory) }
    /// Declares this the only instance on its PostgreSQL database, allowing state that other instances could not
    /// see (file bodies in a local folder, a token key from the data directory). Without it such a configuration
    /// is refused at start-up.
    public var singleInstance: Bool
    /// The witnesses asked to cosign each new key log checkpoint (`--keylog-witness KEY@URL`); none by default.
    public var keyLogWitnesses: [KeyLogWitnessEndpoint] = []
    /// A malicious server's key log answers, for the malicious-server tests (package API: no deployment sets it).
    package var keyLogTampering: (any KeyLogTampering)?
    /// How long an authenticated caller's client row is used from memory before it is read again (10 s; package API:
    /// a test that counts database queries sets it longer, so that a slow machine cannot expire it mid-count).
    package var clientCacheLifetime: Duration = .seconds(10)

    /// The embedded default: SQLite under `dataDirectory`, loopback only.
    public init(
        dataDirectory: String,
        host: String = "127.0.0.1",
        port: Int = 8000,
        registrationToken: String? = nil,
        tokenLifetime: Duration = .seconds(3600),
        signatureWindow: Duration = .seconds(300),
        publicURL: String? = nil,
        tls: ServerTLS? = nil,
        limits: ServerLimits = .init(),
        connections: ConnectionLimits = .init(),
        portFile: String? = nil,
        clock: any WallClock = SystemWallClock(),
        clientCertificateLifetime: Duration = .seconds(86_400),
        integrityRefusal: IntegrityVerdict? = nil,
        adminToken: String? = nil,
        tokenKey: SecureBytes? = nil,
        blobStorage: BlobStorage? = nil,
        objectStore: ObjectStore? = nil,
        singleInstance: Bool = false
    ) {
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.registrationToken = registrationToken
        self.tokenLifetime = tokenLifetime
        self.signatureWindow = signatureWindow
        self.publicURL = publicURL
        self.tls = tls
        self.limits = limits
        self.connections = connections
        self.portFile = portFile
        self.clock = clock
        self.clientCertificateLifetime = clientCertificateLifetime
        self.integrityRefusal = integrityRefusal
        self.adminToken = adminToken
        self.tokenKey = tokenKey
        self.blobStorage = blobStorage
        self.objectStore = objectStore
        self.singleInstance = singleInstance
    }
}
