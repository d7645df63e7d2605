// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
package import StrongroomPKI

/// The server's CA in its data directory (`<data>/ca/`), where `strongroom-server ca init` puts it unless a
/// deployment gives every instance one `--ca-directory`.
extension CertificateAuthority {
    /// The directory of the CA's files inside `dataDirectory`.
    package static func directory(in dataDirectory: String) -> String { dataDirectory + "/ca" }

    /// Whether `dataDirectory` holds a CA.
    package static func exists(in dataDirectory: String) -> Bool { exists(at: directory(in: dataDirectory)) }
}
