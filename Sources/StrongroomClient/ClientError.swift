// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by ``Client``.
///
/// Compare ``code``s, never messages; two errors are equal when their codes are. Messages never contain keys,
/// tokens, secrets or record contents.
public struct ClientError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case unauthorized, forbidden, notFound, conflict, badRequest, tampered, invalidResponse, server
            case transport, cancelled, invalidConfiguration, untrustedServer, timedOut, integrityRefused
            case keyNotLogged, logInconsistent, checkpointStale, keyCompromised, notWitnessed, keyWithheld
            case contactKeysChanged, postQuantumKeyMissing
        }

        private let kind: Kind

        /// The credentials were refused (HTTP 401).
        public static let unauthorized = Code(kind: .unauthorized)
        /// The server refused the action for this client (HTTP 403): not shared with it, not its record.
        public static let forbidden = Code(kind: .forbidden)
        /// No such record, client or access key (HTTP 404).
        public static let notFound = Code(kind: .notFound)
        /// The server's integrity policy refuses this client (HTTP 403 `integrity_refused`): its newest integrity
        /// report is compromised (or suspicious, by policy). A clean check-in lifts it.
        public static let integrityRefused = Code(kind: .integrityRefused)
        /// The record changed since the version given (HTTP 409); re-read and retry.
        public static let conflict = Code(kind: .conflict)
        /// The server found the request malformed (HTTP 400, 413).
        public static let badRequest = Code(kind: .badRequest)
        /// Data from the server did not decrypt or verify: altered, or someone else's ciphertext. No plaintext is
        /// returned.
        public static let tampered = Code(kind: .tampered)
        /// The server's answer was not what the E3DB protocol promises.
        public static let invalidResponse = Code(kind: .invalidResponse)
        /// The server failed (HTTP 5xx).
        public static let server = Code(kind: .server)
        // The four below carry the transport's verdict (`TransportError`'s code of the same name; `transport`
        // for `unreachable`); `underlying` holds that error.
        /// The request did not reach the server, or its answer did not arrive.
        public static let transport = Code(kind: .transport)
        /// The task was cancelled before the exchange finished.
        public static let cancelled = Code(kind: .cancelled)
        /// The server is not the configured one (chain or pin). Nothing was sent.
        public static let untrustedServer = Code(kind: .untrustedServer)
        /// The exchange ran past its timeout (``Client/TransportOptions``).
        public static let timedOut = Code(kind: .timedOut)
        /// The configuration is unusable (bad URL, keys).
        public static let invalidConfiguration = Code(kind: .invalidConfiguration)
        // The six below are the key log's verdicts (``KeyLogVerification``); nothing was encrypted to or verified
        // with the key in question.
        /// The server gave a public key without a valid proof that its key log holds it (no proof, a proof that
        /// does not verify, or a log entry binding other keys).
        public static let keyNotLogged = Code(kind: .keyNotLogged)
        /// The key log is not consistent with the checkpoint this client kept: it shrank, forked or was rewritten,
        /// or a checkpoint is not signed by the pinned log key.
        public static let logInconsistent = Code(kind: .logInconsistent)
        /// The server's checkpoint is older than ``KeyLogVerification/maximumCheckpointAge`` (or dated too far in the
        /// future): a frozen or replayed view.
        public static let checkpointStale = Code(kind: .checkpointStale)
        /// The key log binds a key this client did not create to this client's ID: someone registered or changed
        /// keys in its name. The client refuses key operations.
        public static let keyCompromised = Code(kind: .keyCompromised)
        /// Fewer of the configured witnesses than ``KeyLogVerification/requiredCosignatures`` cosigned the server's key
        /// log checkpoint (freshly): the server may be showing this client a log others do not see.
        public static let notWitnessed = Code(kind: .notWitnessed)
        /// The key log records a newer generation of an access key than the one the server serves as current: the
        /// server withholds the rotation (or replays an old key). Nothing was sealed under the superseded key.
        public static let keyWithheld = Code(kind: .keyWithheld)
        /// A contact this client verified (``Client/verifyContact(_:safetyNumber:)``) now has other keys in the key
        /// log: a key change, or a server binding keys of its own to the contact's ID. Nothing was encrypted to or
        /// verified with them; compare safety numbers again (``Client/safetyNumber(with:)``) before trusting them.
        public static let contactKeysChanged = Code(kind: .contactKeysChanged)
        /// A type's ``PostQuantumPolicy`` is ``PostQuantumPolicy/Mode/require`` and a client its key would be sealed
        /// to — this client or a reader — has no X-Wing key (published, or in this configuration): nothing was
        /// sealed. The reader publishes one (``Client/publishHybridKey(_:)``), or the type's policy changes.
        public static let postQuantumKeyMissing = Code(kind: .postQuantumKeyMissing)

        public var description: String { "\(kind)" }
    }

    public let code: Code
    public let context: ErrorContext
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The machine-readable `code` of a Strongroom server's error body (such as `stale_key_generation`).
    var serverCode: String?
    /// The type's current key generation, when the server's answer named it (`X-Strongroom-Key-Generation`).
    var keyGeneration: Int?

    /// Whether the server refused a write sealed under a key generation the type has rotated past.
    var isStaleKeyGeneration: Bool { code == .conflict && serverCode == "stale_key_generation" }

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }

    /// Creates an error carrying the HTTP status.
    init(
        _ code: Code,
        _ message: String,
        status: Int?,
        underlying: (any Error & Sendable)? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.init(code, message, underlying: underlying, fileID: fileID, line: line)
        self.status = status
    }

    /// The one place HTTP statuses (and Strongroom's `code` in an error body, when there is one) become codes.
    static func status(_ status: Int, code bodyCode: String? = nil, message: String) -> ClientError {
        let code: Code =
            switch (status, bodyCode) {
            case (403, "integrity_refused"): .integrityRefused
            case (400, _), (413, _), (422, _): .badRequest
            case (401, _): .unauthorized
            case (403, _): .forbidden
            case (404, _): .notFound
            case (409, _): .conflict
            case (500..., _): .server
            default: .invalidResponse
            }
        return ClientError(code, message, status: status)
    }
}

extension ClientError {
    /// The code of the client error `body` throws; nil when it returns, ``Code/server`` for another error. For
    /// tests that compare many outcomes by code.
    package static func code(of body: () async throws -> Void) async -> Code? {
        do {
            try await body()
            return nil
        } catch let error as ClientError {
            return error.code
        } catch {
            return .server
        }
    }
}
