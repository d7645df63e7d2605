// Strongroom — SPDX-License-Identifier: Apache-2.0
import CAgent
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected or listening Unix-domain stream socket, closed when released. Every read and write is bounded by
/// the socket's timeouts, so a peer that stops talking cannot stall its caller. Unchecked `Sendable`: the descriptor
/// never changes, and each connection is used by one thread at a time.
package final class UnixSocket: @unchecked Sendable {
    package let descriptor: Int32

    /// Why a socket operation failed: the system call and its `errno`.
    package struct Failure: Error, CustomStringConvertible {
        package var call: String
        package var code: Int32
        package var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The longest path a socket address holds (`sun_path` less its terminating zero).
    package static var maximumPathLength: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

    private static func makeSocket() throws(Failure) -> UnixSocket {
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let descriptor = socket(AF_UNIX, type, 0)
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        return UnixSocket(descriptor: descriptor)
    }

    /// Runs `body` with the address of `path`.
    private static func withAddress<R>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) throws(Failure) -> R {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else {
            throw Failure(call: "address", code: ENAMETOOLONG)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// Connects to the socket at `path`, with `timeout` seconds for each later read and write.
    package static func connect(to path: String, timeout: Int) throws(Failure) -> UnixSocket {
        let socket = try makeSocket()
        try socket.setTimeouts(seconds: timeout)
        let result = try withAddress(path) { address, length in
            #if canImport(Glibc)
            Glibc.connect(socket.descriptor, address, length)
            #else
            Darwin.connect(socket.descriptor, address, length)
            #endif
        }
        guard result == 0 else { throw Failure(call: "connect", code: errno) }
        return socket
    }

    /// A socket listening at `path`, which must not exist, made readable and writable by its owner only.
    package static func listen(at path: String, backlog: Int32 = 16) throws(Failure) -> UnixSocket {
        let socket = try makeSocket()
        let previous = umask(0o177)
        let result = try withAddress(path) { address, length in bind(socket.descriptor, address, length) }
        let bindError = errno
        umask(previous)
        guard result == 0 else { throw Failure(call: "bind", code: bindError) }
        guard chmod(path, 0o600) == 0 else { throw Failure(call: "chmod", code: errno) }
        #if canImport(Glibc)
        guard Glibc.listen(socket.descriptor, backlog) == 0 else { throw Failure(call: "listen", code: errno) }
        #else
        guard Darwin.listen(socket.descriptor, backlog) == 0 else { throw Failure(call: "listen", code: errno) }
        #endif
        return socket
    }

    /// Waits up to `milliseconds` for a connection; nil when none came (or a signal interrupted the wait).
    package func accept(waitingUpTo milliseconds: Int32) throws(Failure) -> UnixSocket? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        if ready < 0, errno == EINTR { return nil }
        guard ready >= 0 else { throw Failure(call: "poll", code: errno) }
        guard ready > 0 else { return nil }
        let connection = cagent_accept(descriptor)
        guard connection >= 0 else {
            if [EINTR, EAGAIN, ECONNABORTED].contains(errno) { return nil }
            throw Failure(call: "accept", code: errno)
        }
        return UnixSocket(descriptor: connection)
    }

    /// The user ID of the process at the other end (from the kernel, not from anything it sent).
    package var peerUserID: UInt32? {
        var user: UInt32 = 0
        guard cagent_peer_uid(descriptor, &user) == 0 else { return nil }
        return uid_t(user)
    }

    /// Bounds every later read and write to `seconds`.
    package func setTimeouts(seconds: Int) throws(Failure) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, size) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, size) == 0
        else { throw Failure(call: "setsockopt", code: errno) }
    }

    /// Writes all of `bytes`.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard let base = bytes.baseAddress else { return }
        let failure = ExactIO.transfer(count: bytes.count, endOfStream: EPIPE) {
            send(descriptor, base + $0, bytes.count - $0, Int32(MSG_NOSIGNAL))
        }
        if let failure { throw Failure(call: "send", code: failure) }
    }

    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Reads exactly `buffer.count` bytes, or fails (a timeout, or the peer closing early).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) {
        guard let base = buffer.baseAddress else { return }
        let failure = ExactIO.transfer(count: buffer.count, endOfStream: ECONNRESET) {
            recv(descriptor, base + $0, buffer.count - $0, 0)
        }
        if let failure { throw Failure(call: "recv", code: failure) }
    }

    /// Reads exactly `count` bytes.
    package func read(count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try read(into: $0) }
        return bytes
    }
}
