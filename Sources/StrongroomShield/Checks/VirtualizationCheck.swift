// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Container and virtual-machine hints: `/.dockerenv`, `/run/.containerenv`, container cgroups of PID 1, the CPU's
/// `hypervisor` flag. Informational by default: servers and CI run there legitimately.
public struct VirtualizationCheck: IntegrityCheck {
    public init() {}
    public var name: String { "virtualization" }

    public func observe(_ context: IntegrityContext) -> [IntegrityObservation] {
        var evidence: [String] = []
        for marker in ["/.dockerenv", "/run/.containerenv"] where FileManager.default.fileExists(atPath: marker) {
            evidence.append("\(marker) exists")
        }
        if let cgroup = SystemFiles.text("/proc/1/cgroup", limit: 64 << 10) {
            for runtime in ["docker", "kubepods", "containerd", "lxc", "libpod"] where cgroup.contains(runtime) {
                evidence.append("PID 1 cgroup mentions \(runtime)")
            }
        }
        if let cpuinfo = SystemFiles.text("/proc/cpuinfo", limit: 1 << 20),
            cpuinfo.split(separator: "\n").contains(where: { $0.hasPrefix("flags") && $0.contains(" hypervisor") })
        {
            evidence.append("the CPU reports the hypervisor flag")
        }
        guard !evidence.isEmpty else { return [] }
        return [
            IntegrityObservation(
                .virtualization,
                "the process runs in a container or virtual machine",
                evidence: evidence
            )
        ]
    }
}
