// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore

/// A client named on the command line (`--reader`, `--authorizer`, `--on-behalf-of`, `store share --with`,
/// `keylog verify --client`): a client ID, or the name of a profile in the profile folder, whose client it means —
/// so a guide says `--reader bob` where it once needed a `python3` one-liner over `whoami --json`.
enum ClientReference {
    /// The client `text` names, resolved against the profiles in `directory` (read on the blocking executor, never
    /// on the cooperative pool); a usage error naming `option` otherwise.
    static func resolve(_ text: String, option: String, profiles directory: URL) async throws -> UUID {
        if let id = UUID(uuidString: text) { return id }
        return try await BlockingExecutor.shared.run { _ in
            try profileClientID(text, option: option, profiles: directory)
        }
    }

    /// The client ID saved in the profile `text` (blocking: a file read).
    private static func profileClientID(_ text: String, option: String, profiles directory: URL) throws -> UUID {
        let file = directory.appending(path: text).appending(path: "e3db.json")
        guard !text.isEmpty, !text.contains("/"), text != ".", text != "..",
            let data = try? Data(contentsOf: file, options: .uncached),  // absent: not a profile name
            data.count <= 1 << 20,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let stored = object["client_id"] as? String, let id = UUID(uuidString: stored)
        else {
            throw CLIError(
                description: "error: \(option) takes a client ID or a profile name; \(text) is neither (no profile "
                    + "\(text) in \(directory.path))",
                exitCode: .validationFailure
            )
        }
        return id
    }
}
