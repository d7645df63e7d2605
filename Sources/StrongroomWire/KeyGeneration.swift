// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Strongroom's own HTTP header fields. E3DB defines none of them: the official SDKs neither send nor read them, and
/// a request without them is served exactly as before.
public enum StrongroomHeader {
    /// `X-Strongroom-Key-Generation`. On a record write or update, and on an EAK stored by its writer: the
    /// generation of the type's access key the request's data keys (or EAK) are sealed under, so the server refuses
    /// it (409, `stale_key_generation`) once the type has rotated past it (docs/design/Revocation.md, "The fence").
    /// On an EAK answer, and on that refusal: the type's current generation.
    public static let keyGeneration = "X-Strongroom-Key-Generation"
}

/// An access-key generation as it travels in ``StrongroomHeader/keyGeneration``.
public enum KeyGeneration {
    /// The generations a type can have: 1 (never rotated) up to `Int32.max`.
    public static let range: ClosedRange<Int> = 1...Int(Int32.max)

    /// The generation `text` names: decimal digits only (no sign, no spaces), within ``range``; nil otherwise.
    public static func parse(_ text: some StringProtocol) -> Int? {
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = Int(text), range.contains(value)
        else { return nil }
        return value
    }
}
