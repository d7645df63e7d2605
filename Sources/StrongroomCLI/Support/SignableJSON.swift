// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension SignableValue {
    /// ``init(json:)`` with its refusal as the CLI's bad-input error (exit 4).
    static func cli(_ json: JSONValue) throws(CLIError) -> SignableValue {
        do {
            return try SignableValue(json: json)
        } catch {
            throw CLIError(description: "error: \(error.message)", exitCode: ExitCode(4))
        }
    }
}

/// What `strongroom sign` prints and `strongroom verify` reads.
struct SignedJSON: Codable {
    var document: JSONValue
    var signature: String
}
