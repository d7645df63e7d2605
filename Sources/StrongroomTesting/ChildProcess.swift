// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSpawn
public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests, in the shape of Foundation's `Process` (set it up, ``run()``, wait), started with
/// `posix_spawn` and reaped by a thread of its own.
///
/// Foundation's `Process.run()` on Linux copies a whole 256-byte `d_name` out of each `/proc/self/fd` entry while it
/// looks for the highest open descriptor, and reads past glibc's buffer when an entry sits at its end: a SIGSEGV in
/// `memcpy` about one run in five of a suite that starts many children (swift-corelibs-foundation#5472). It killed
/// this project's test process three times, so every child a test starts comes through here instead. The child
/// gets only its three standard streams (every other descriptor is closed by the spawn), so no child inherits
/// another's pipe and each exit is seen when it happens.
public final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited with a status.
        case exit
        /// A signal ended it.
        case uncaughtSignal
    }

    /// The program to run.
    public var executableURL: URL?
    /// Its arguments, without the program's name.
    public var arguments: [String]? = []
    /// Its whole environment; nil inherits this process's.
    public var environment: [String: String]?
    /// Its working directory; nil keeps this process's.
    public var currentDirectoryURL: URL?
    /// Standard input: a `FileHandle`, a `Pipe` (the child reads its reading end), or nil for `/dev/null`.
    public var standardInput: Any?
    /// Standard output: a `FileHandle`, a `Pipe` (the child writes its writing end), or nil for `/dev/null`.
    public var standardOutput: Any?
    /// Standard error, as ``standardOutput``.
    public var standardError: Any?
    /// Called on the reaping thread once the child has exited.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)?

    private struct State {
        var pid: pid_t = 0
        var waitStatus: Int32?
    }

    private let state = Mutex(State())
    private let exited = DispatchGroup()

    /// A process to set up.
    public init() {}

    /// The child's process ID (0 before ``run()``).
    public var processIdentifier: Int32 { state.withLock { $0.pid } }

    /// Whether the child was started and has not been reaped yet.
    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.waitStatus == nil } }

    /// How the child ended (after it did).
    public var terminationReason: TerminationReason {
        let status = state.withLock { $0.waitStatus } ?? 0
        return status & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// Its exit status, or the number of the signal that ended it (after it ended).
    public var terminationStatus: Int32 {
        let status = state.withLock { $0.waitStatus } ?? 0
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Starts the child.
    ///
    /// - Throws: `POSIXError` when it cannot be started (no such program, no permission).
    public func run() throws {
        guard let executableURL, processIdentifier == 0 else { throw POSIXError(.EINVAL) }
        let path = executableURL.path
        let argv = [path] + (arguments ?? [])
        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let input = Self.descriptor(standardInput, reading: true)
        let output = Self.descriptor(standardOutput, reading: false)
        let error = Self.descriptor(standardError, reading: false)
        var pid: pid_t = 0
        let result = Self.withCStrings(argv) { argv in
            Self.withCStrings(environment) { envp in
                if let directory = currentDirectoryURL?.path {
                    return cspawn(&pid, path, argv, envp, directory, input, output, error)
                }
                return cspawn(&pid, path, argv, envp, nil, input, output, error)
            }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        // The child's ends of pipes are the child's now: closed here, so the other end sees it exit.
        (standardInput as? Pipe).map { try? $0.fileHandleForReading.close() }
        (standardOutput as? Pipe).map { try? $0.fileHandleForWriting.close() }
        (standardError as? Pipe).map { try? $0.fileHandleForWriting.close() }
        let child = pid
        state.withLock { $0.pid = child }
        exited.enter()
        Thread.detachNewThread { [self] in
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1, errno == EINTR {}
            state.withLock { $0.waitStatus = status }
            terminationHandler?(self)
            exited.leave()
        }
    }

    /// Blocks until the child has exited (at once when it never started).
    public func waitUntilExit() {
        guard processIdentifier != 0 else { return }
        exited.wait()
    }

    /// Sends SIGTERM.
    public func terminate() {
        let pid = processIdentifier
        if pid != 0, isRunning { kill(pid, SIGTERM) }
    }

    /// The descriptor the child gets for a stream: a handle's, a pipe's end, or -1 for `/dev/null`.
    private static func descriptor(_ stream: Any?, reading: Bool) -> Int32 {
        switch stream {
        case let handle as FileHandle: handle.fileDescriptor
        case let pipe as Pipe:
            reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        default: -1
        }
    }

    /// `strings` as a NULL-terminated array of C strings, for the duration of `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
