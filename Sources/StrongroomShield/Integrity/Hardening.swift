// Strongroom — SPDX-License-Identifier: Apache-2.0
import CShield

/// Optional process hardening to call early, before secrets are loaded.
public enum Hardening {
    /// Marks the process non-dumpable (`PR_SET_DUMPABLE` 0): no core file with its secrets, and no same-user
    /// debugger may attach (`gdb -p`, `strace -p`). Root can still attach. Returns whether it took effect.
    @discardableResult
    public static func disableCoreDumps() -> Bool {
        cshield_set_non_dumpable() == 0
    }

    /// Whether the process is dumpable now (nil when the platform cannot tell).
    public static var isDumpable: Bool? {
        switch cshield_get_dumpable() {
        case 0: false
        case 1: true
        default: nil
        }
    }
}
