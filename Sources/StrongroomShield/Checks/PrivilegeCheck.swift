// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Running as root, or holding effective capabilities without being root (`CapEff` in `/proc/self/status`).
public struct PrivilegeCheck: IntegrityCheck {
    public init() {}
    public var name: String { "privilege" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        if geteuid() == 0 {
            return [IntegrityObservation(.runningAsRoot, "the process runs as root", evidence: ["euid 0"])]
        }
        guard let status = SystemFiles.text("/proc/self/status", limit: 64 << 10),
            let field = SystemFiles.statusField("CapEff", in: status), let capabilities = UInt64(field, radix: 16)
        else { return [] }
        guard capabilities != 0 else { return [] }
        return [
            IntegrityObservation(
                .effectiveCapabilities,
                "the process holds effective capabilities",
                evidence: ["CapEff: \(field)"]
            )
        ]
    }
}
