// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
import StrongroomServerTesting
#endif

/// A TCP connection to the loopback server, byte by byte: for requests no HTTP client would send (another Host, a
/// trickled body) and for watching when the server closes. Every blocking socket call runs on a thread of its own,
/// never on the cooperative pool that the in-process servers of other tests need.
final class RawConnection: Sendable {
    private let descriptor: Int32

    /// Connects; with `first`, sends it on the same thread right after connecting, so no wait for the cooperative
    /// pool comes between the two (a server with a short idle timeout would close a connection left silent). Reads
    /// give up after `receiveTimeout` seconds.
    init(port: Int, sending first: String? = nil, receiveTimeout: Int = 30) async throws {
        let firstBytes = first.map { Array($0.utf8) }
        let descriptor = try await Self.blocking { () throws -> Int32 in
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw TestFailure("socket() failed") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(descriptor)
                throw TestFailure("connect() failed")
            }
            var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if let firstBytes {
                let sent = firstBytes.withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent == firstBytes.count else {
                    close(descriptor)
                    throw TestFailure("send() failed")
                }
            }
            return descriptor
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Runs a blocking call on a new thread and waits for it without holding a cooperative thread.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) async -> Bool {
        let descriptor = descriptor
        let bytes = Array(text.utf8)
        let sent = try? await Self.blocking {  // a thread that cannot start is a failed send
            bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        return sent == bytes.count
    }

    /// Reads until the server closes the connection (or 30 s pass); the text received.
    func readToEnd() async throws -> String {
        let descriptor = descriptor
        return try await Self.blocking {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// Reads one whole response (head and `Content-Length` body) and leaves the connection open.
    func readResponse() async throws -> String {
        let descriptor = descriptor
        return try await Self.blocking {
            var received: [UInt8] = []
            var byte: UInt8 = 0
            while recv(descriptor, &byte, 1, 0) == 1 {
                received.append(byte)
                guard received.suffix(4) == [13, 10, 13, 10] else { continue }
                let head = String(decoding: received, as: UTF8.self).lowercased()
                let length =
                    head.components(separatedBy: "\r\n")
                    .first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                var body = [UInt8](repeating: 0, count: length)
                var read = 0
                while read < length {
                    let count = body[read...].withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    if count <= 0 { break }
                    read += count
                }
                return String(decoding: received + body[0..<read], as: UTF8.self)
            }
            throw TestFailure("the connection closed before a whole response head")
        }
    }

    /// Whether the server closes the connection within 30 s (an orderly close or a reset).
    func isClosedByServer() async -> Bool {
        let descriptor = descriptor
        let closed = try? await Self.blocking {  // a thread that cannot start answers "not closed"
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count == 0 { return true }
                if count < 0 { return errno == ECONNRESET }
            }
        }
        return closed ?? false
    }

    /// Sends a whole request and reads the answer until the server closes.
    func exchange(_ request: String) async throws -> String {
        guard await send(request) else { throw TestFailure("send failed") }
        return try await readToEnd()
    }
}
