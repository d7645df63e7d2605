// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

extension Sodium {
    /// `crypto_secretstream_xchacha20poly1305` constants.
    enum SecretStream {
        static let keyByteCount = Int(crypto_secretstream_xchacha20poly1305_keybytes())
        static let headerByteCount = Int(crypto_secretstream_xchacha20poly1305_headerbytes())
        static let additionalByteCount = Int(crypto_secretstream_xchacha20poly1305_abytes())
        static let tagMessage = UInt8(crypto_secretstream_xchacha20poly1305_tag_message())
        static let tagFinal = UInt8(crypto_secretstream_xchacha20poly1305_tag_final())
    }
}
