// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore

/// The agent's wire format on its Unix socket: one request and one answer per connection.
///
/// A request is the magic `SRA1`, an operation byte, a 2-byte big-endian length (at most
/// ``maximumRequestPayload``) and that many bytes. An answer is a status byte, a 2-byte big-endian length (at most
/// ``maximumAnswerPayload``) and that many bytes. Both sides check every length before reading, and every read and
/// write is bounded by the socket's timeout.
package enum AgentProtocol {
    package static let magic: [UInt8] = Array("SRA1".utf8)
    package static let maximumRequestPayload = 256
    package static let maximumAnswerPayload = 4_096
    /// Seconds either side waits for the other to read or write before giving up.
    package static let timeout = 5

    package enum Operation: UInt8 {
        /// Payload: a keychain's store ID (UTF-8). Answer: its 32-byte data key, or `unknown`.
        case key = 1
        /// No payload. Answer: ``AgentStatus`` as JSON.
        case status = 2
        /// No payload. The agent wipes what it holds, answers `ok` and exits.
        case stop = 3
    }

    package enum Status: UInt8 {
        case ok = 0
        case unknown = 1
        case badRequest = 2
    }

    /// A malformed or oversized message.
    package struct Malformed: Error {}

    /// A request; a payload longer than ``maximumRequestPayload`` is ``Malformed`` (never a trap: a keychain's store
    /// ID comes from a file the user names).
    package static func request(_ operation: Operation, _ payload: [UInt8] = []) throws(Malformed) -> [UInt8] {
        guard payload.count <= maximumRequestPayload else { throw Malformed() }
        return magic + [operation.rawValue] + bigEndian(payload.count) + payload
    }

    /// An answer's header; a length over ``maximumAnswerPayload`` is ``Malformed`` (never a trap).
    package static func answerHeader(_ status: Status, length: Int) throws(Malformed) -> [UInt8] {
        guard (0...maximumAnswerPayload).contains(length) else { throw Malformed() }
        return [status.rawValue] + bigEndian(length)
    }

    package static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    package static func length(_ bytes: ArraySlice<UInt8>) -> Int {
        Int(bytes[bytes.startIndex]) << 8 | Int(bytes[bytes.startIndex + 1])
    }

    /// Reads one request: its operation and payload.
    package static func readRequest(from socket: UnixSocket) throws -> (Operation, [UInt8]) {
        let header = try socket.read(count: 7)
        guard Array(header[0..<4]) == magic, let operation = Operation(rawValue: header[4]) else { throw Malformed() }
        let count = length(header[5..<7])
        guard count <= maximumRequestPayload else { throw Malformed() }
        return (operation, try socket.read(count: count))
    }

    /// Reads one answer's header: its status and the payload length (checked).
    package static func readAnswerHeader(from socket: UnixSocket) throws -> (Status, Int) {
        let header = try socket.read(count: 3)
        guard let status = Status(rawValue: header[0]) else { throw Malformed() }
        let count = length(header[1..<3])
        guard count <= maximumAnswerPayload else { throw Malformed() }
        return (status, count)
    }
}

/// What `strongroom agent status` prints.
package struct AgentStatus: Codable {
    package var pid: Int32
    package var socket: String
    package var keychains: [String]
    package var idleTimeoutSeconds: Int
    package var secondsUntilIdleExit: Int
    /// Keychains held but left out of ``keychains`` so that the answer fits its frame (long paths); nil when none.
    package var keychainsNotListed: Int?

    package init(
        pid: Int32,
        socket: String,
        keychains: [String],
        idleTimeoutSeconds: Int,
        secondsUntilIdleExit: Int,
        keychainsNotListed: Int? = nil
    ) {
        (self.pid, self.socket, self.keychains) = (pid, socket, keychains)
        (self.idleTimeoutSeconds, self.secondsUntilIdleExit) = (idleTimeoutSeconds, secondsUntilIdleExit)
        self.keychainsNotListed = keychainsNotListed
    }

    package enum CodingKeys: String, CodingKey {
        case pid, socket, keychains
        case idleTimeoutSeconds = "idle_timeout_seconds"
        case secondsUntilIdleExit = "seconds_until_idle_exit"
        case keychainsNotListed = "keychains_not_listed"
    }

    /// The status as JSON of at most `maximumBytes`: keychains are left out from the end (and counted) until it
    /// fits; a status whose socket path alone does not fit is nil.
    package func encoded(maximumBytes: Int) -> [UInt8]? {
        var status = self
        while true {
            guard let body = try? JSONEncoder().encode(status) else { return nil }
            if body.count <= maximumBytes { return Array(body) }
            guard !status.keychains.isEmpty else { return nil }
            status.keychains.removeLast()
            status.keychainsNotListed = (status.keychainsNotListed ?? 0) + 1
        }
    }
}
