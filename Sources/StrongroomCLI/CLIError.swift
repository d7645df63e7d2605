// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomKeychain
import StrongroomPKI
import StrongroomShield
import StrongroomSync

/// A failure the CLI reports to the user: one line on standard error and a distinct exit code.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    var exitCode: ExitCode
    /// The library's error this one words for the user, shown with `--verbose`.
    var cause: (any Error)?

    init(description: String, exitCode: ExitCode, cause: (any Error)? = nil) {
        self.description = description
        self.exitCode = exitCode
        self.cause = cause
    }

    /// Maps any module error to a message and an exit code, in one place.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as StrongroomCrypto.CryptoError:
            let code: Int32 =
                switch error.code {
                case .authenticationFailed: 3
                case .invalidFormat, .unsupportedVersion, .truncated: 4
                case .invalidKey, .noMatchingIdentity: 5
                case .io: 6
                case .exists: 9
                case .cancelled: 130
                default: 1
                }
            return CLIError(description: "error: \(error.message)\(codeTag(error.code))", exitCode: ExitCode(code))
        case let error as ClientError where (error.underlying as? StrongroomCrypto.CryptoError)?.code == .exists:
            return CLIError(description: "error: \(error.message) (`--overwrite` replaces it)", exitCode: ExitCode(9))
        case let error as ClientError:
            return CLIError(
                description: "error: \(withoutRoute(error.message))\(codeTag(error.code))",
                exitCode: ExitCode(clientExitStatus(for: error.code))
            )
        case let error as KeychainError:
            let code: Int32 =
                switch error.code {
                case .tampered, .wrongPassphrase, .authenticationRequired: 3
                case .corrupted: 4
                case .invalidParameters, .unsupported, .typeMismatch: 5
                case .io: 6
                case .duplicateItem: 9
                case .locked: 8
                default: 1
                }
            return CLIError(description: "error: \(error.message)\(codeTag(error.code))", exitCode: ExitCode(code))
        case let error as DatastoreError:
            let code: Int32 =
                switch error.code {
                case .wrongKey, .wrongPassword, .keyRequired, .notEncrypted, .tampered: 3
                case .invalidBody, .invalidDocumentID, .invalidRevisionID, .documentTooLarge, .invalidArgument,
                    .invalidQuery:
                    4
                case .invalidKey, .invalidName: 5
                case .storage: 6
                case .notFound: 7
                case .busy: 8
                case .conflict: 9
                case .cancelled: 130
                default: 1
                }
            return CLIError(description: "error: \(error.message)\(codeTag(error.code))", exitCode: ExitCode(code))
        case let error as PKIError:
            let code: Int32 =
                switch error.code {
                case .invalidEncoding, .tooExpensive: 4
                case .invalidParameters, .unsupported: 5
                case .exists: 9
                default: 3  // signature, chain, usage, name, revocation, passphrase, key mismatch
                }
            return CLIError(description: "error: \(error.message)\(codeTag(error.code))", exitCode: ExitCode(code))
        case let error as ShieldError:
            // The server part of a shield operation (registering, checking in): the client failure's words and exit.
            if error.code == .server, let client = error.underlying as? ClientError {
                return CLIError(
                    description: "error: \(error.message): \(client.message)\(codeTag(client.code))",
                    exitCode: ExitCode(clientExitStatus(for: client.code))
                )
            }
            let code: Int32 =
                switch error.code {
                case .authenticationFailed, .invalidManifest: 3
                case .invalidFormat, .truncated: 4
                case .keyUnavailable, .invalidParameters: 5
                case .io: 6
                case .exists: 9
                case .cancelled: 130
                default: 1
                }
            return CLIError(description: "error: \(error.message)\(codeTag(error.code))", exitCode: ExitCode(code))
        case let error as SyncError:
            let code: Int32 =
                switch error.code {
                case .tampered, .invalidRecord: 3
                case .invalidName, .quotaExceeded: 4
                case .invalidKey, .unsupportedVersion, .otherHome: 5
                case .readOnly, .accessRevoked, .notOwner: 8
                case .invalidResponse: 11
                default: 1
                }
            let hint =
                switch error.code {
                case .readOnly: " (keep them, or drop them: `store sync --discard-local`)"
                case .otherHome:
                    " (sync it with that client's --profile, or move it to this one on purpose: `store sync --rehome`)"
                default: ""
                }
            return CLIError(
                description: "error: \(withoutRoute(error.message))\(hint)\(codeTag(error.code))",
                exitCode: ExitCode(code)
            )
        case let error as CoreError:
            return CLIError(description: "error: \(error.message)\(codeTag(error.code))", exitCode: ExitCode(5))
        case let error as AtomicFile.Failure:
            return CLIError(description: "error: \(error.message)", exitCode: ExitCode(error.exists ? 9 : 6))
        default:
            return CLIError(description: "error: \(error)", exitCode: .failure)
        }
    }
}

/// The exit status of each client failure (documented in the README's CLI section).
func clientExitStatus(for code: ClientError.Code) -> Int32 {
    switch code {
    case .tampered, .keyNotLogged, .logInconsistent, .checkpointStale, .keyCompromised, .notWitnessed, .keyWithheld,
        .contactKeysChanged:
        3
    case .badRequest: 4
    case .invalidConfiguration, .postQuantumKeyMissing: 5
    case .notFound: 7
    case .unauthorized, .forbidden, .integrityRefused: 8
    case .conflict: 9
    case .transport, .timedOut, .untrustedServer: 10
    case .server, .invalidResponse: 11
    case .cancelled: 130
    default: 1
    }
}

/// Runs `body`; the server's "not found" becomes `error: <missing>` (exit 7), the command's own words for what is
/// not there, with the server's answer kept for `--verbose`.
func naming<T>(missing: @autoclosure () -> String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ClientError {
        guard error.code == .notFound else { throw error }
        throw CLIError(description: "error: \(missing())", exitCode: ExitCode(7), cause: error)
    }
}

/// Prints a command's failure as a ``CLIError`` line (its causes too with `--verbose`) and returns its exit code.
func report(_ error: any Error) -> ExitCode {
    let failure = CLIError.from(error)
    printError(failure.description)
    if Verbosity.isOn, let cause = failure.cause { printError("  caused by: \(cause)") }
    let reported = failure.cause ?? error
    if Verbosity.isOn, case let causes = Verbosity.causes(of: reported), !causes.isEmpty { printError(causes) }
    return failure.exitCode
}

/// `message` without the request it names (`GET /v1/storage/access_keys/…: `), unless `--verbose`: a route is the
/// library's word, not the user's.
func withoutRoute(_ message: String) -> String {
    guard !Verbosity.isOn else { return message }
    let verbs = ["GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD "]
    guard let verb = verbs.first(where: { message.hasPrefix($0) }),
        let colon = message.range(
            of: ": ",
            range: message.index(message.startIndex, offsetBy: verb.count)..<message.endIndex
        ),
        !message[message.index(message.startIndex, offsetBy: verb.count)..<colon.lowerBound].contains(" ")
    else { return message }
    return String(message[colon.upperBound...])
}

/// A library error's code as a `[code]` tag after its message: only with `--verbose`, since a code is the library's
/// word (`[invalidParameters]`), not the user's.
func codeTag(_ code: some CustomStringConvertible) -> String { Verbosity.isOn ? " [\(code)]" : "" }

/// `--verbose` (anywhere on the command line) or `STRONGROOM_VERBOSE=1`: a failure's line is followed by where it was
/// made and the chain of lower-level errors under it (library internals a user does not normally need).
enum Verbosity {
    static let flag = "--verbose"
    static let isOn =
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains(flag)
        || ProcessInfo.processInfo.environment["STRONGROOM_VERBOSE"] == "1"

    /// The command line without `--verbose` (before a `--`), for the parser.
    static func arguments(_ arguments: [String]) -> [String] {
        guard let end = arguments.firstIndex(of: "--") else { return arguments.filter { $0 != flag } }
        return arguments[..<end].filter { $0 != flag } + arguments[end...]
    }

    /// `    at FILE:LINE` and `  caused by: …` lines for `error` and what it wraps (16 lines at most); none for an
    /// error that is not a library's (the CLI's own usage errors).
    static func causes(of error: any Error) -> String {
        var lines: [String] = []
        var current: (any Error)? = error
        while let next = current, lines.count < 16 {
            if let located = next as? any StrongroomError {
                if !lines.isEmpty { lines.append("  caused by: \(located)") }
                lines.append("    at \(located.location)")
                current = located.underlying
            } else {
                if !lines.isEmpty { lines.append("  caused by: \(String(reflecting: next))") }
                current = nil
            }
        }
        return lines.joined(separator: "\n")
    }
}
