// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium

/// The anchors: libsodium called directly, with no Strongroom code in between.
enum RawSodium {
    /// One `crypto_secretbox_easy` of `message` (fixed key and nonce).
    static func secretbox(_ message: [UInt8], into output: inout [UInt8], key: [UInt8], nonce: [UInt8]) {
        _ = crypto_secretbox_easy(&output, message, UInt64(message.count), nonce, key)
    }

    /// One `crypto_secretbox_easy` followed by libsodium's own base64url of the box: the raw cost of the same work
    /// as a wire-format field (minus the 32-byte key wrap).
    static func secretboxToText(
        _ message: [UInt8],
        into output: inout [UInt8],
        text: inout [CChar],
        key: [UInt8],
        nonce: [UInt8]
    ) {
        _ = crypto_secretbox_easy(&output, message, UInt64(message.count), nonce, key)
        _ = sodium_bin2base64(&text, text.count, output, output.count, Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING))
    }

    /// One `crypto_secretbox_open_easy`.
    static func secretboxOpen(_ box: [UInt8], into output: inout [UInt8], key: [UInt8], nonce: [UInt8]) -> Bool {
        crypto_secretbox_open_easy(&output, box, UInt64(box.count), nonce, key) == 0
    }

    /// Pushes `blocks` 64 KiB blocks through secretstream (re-keying every 64 blocks, like a 4 MiB file).
    static func secretstreamPush(blocks: Int, block: [UInt8]) -> Int64 {
        var key = [UInt8](repeating: 7, count: 32)
        var header = [UInt8](repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
        var state = crypto_secretstream_xchacha20poly1305_state()
        var chunk = [UInt8](repeating: 0, count: block.count + 17)
        var total: Int64 = 0
        for index in 0..<blocks {
            if index % 64 == 0 { crypto_secretstream_xchacha20poly1305_init_push(&state, &header, &key) }
            var length: UInt64 = 0
            let tag = UInt8(index % 64 == 63 ? crypto_secretstream_xchacha20poly1305_tag_final() : 0)
            crypto_secretstream_xchacha20poly1305_push(&state, &chunk, &length, block, UInt64(block.count), nil, 0, tag)
            total += Int64(block.count)
        }
        return total
    }

    /// A 64-chunk stream of `block`, for the pull anchor.
    static func makeStream(block: [UInt8]) -> (header: [UInt8], chunks: [[UInt8]]) {
        var key = [UInt8](repeating: 7, count: 32)
        var header = [UInt8](repeating: 0, count: Int(crypto_secretstream_xchacha20poly1305_headerbytes()))
        var state = crypto_secretstream_xchacha20poly1305_state()
        crypto_secretstream_xchacha20poly1305_init_push(&state, &header, &key)
        var chunks: [[UInt8]] = []
        for index in 0..<64 {
            var chunk = [UInt8](repeating: 0, count: block.count + 17)
            var length: UInt64 = 0
            let tag = UInt8(index == 63 ? crypto_secretstream_xchacha20poly1305_tag_final() : 0)
            crypto_secretstream_xchacha20poly1305_push(&state, &chunk, &length, block, UInt64(block.count), nil, 0, tag)
            chunks.append(chunk)
        }
        return (header, chunks)
    }

    /// Pulls the 64-chunk stream `rounds` times.
    static func secretstreamPull(_ stream: (header: [UInt8], chunks: [[UInt8]]), rounds: Int) -> Int64 {
        var key = [UInt8](repeating: 7, count: 32)
        var state = crypto_secretstream_xchacha20poly1305_state()
        var block = [UInt8](repeating: 0, count: 65_536)
        var total: Int64 = 0
        for _ in 0..<rounds {
            crypto_secretstream_xchacha20poly1305_init_pull(&state, stream.header, &key)
            for chunk in stream.chunks {
                var length: UInt64 = 0
                var tag: UInt8 = 0
                crypto_secretstream_xchacha20poly1305_pull(
                    &state,
                    &block,
                    &length,
                    &tag,
                    chunk,
                    UInt64(chunk.count),
                    nil,
                    0
                )
                total += Int64(length)
            }
        }
        return total
    }
}
