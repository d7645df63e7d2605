// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Writes a file that appears under its name only once complete and synced, and that leaves nothing behind when
/// the work fails, is cancelled, or the process is killed: it is unnamed (`O_TMPFILE`) until then, so a partial file
/// (and the plaintext in it) cannot outlive the process. Where the file system has no unnamed files, a hidden named
/// file registered with `StagedFiles` stands in.
///
/// ```swift
/// try NewFile.write(to: "/tmp/out.bin") { append in
///     var piece = Array("hello".utf8)
///     try append(&piece)
/// }
/// ```
///
/// Blocking: call it on the `BlockingExecutor`.
public enum NewFile {
    /// Creates `path` (which must not exist) from what `body` appends; each appended buffer is left empty and, as
    /// plaintext may pass through, wiped when its storage is released.
    ///
    /// - Throws: ``CryptoError/Code/io`` when `path` exists or a write fails; what `body` throws.
    public static func write<R>(
        to path: String,
        _ body: (_ append: (inout [UInt8]) throws(CryptoError) -> Void) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        try FileCipher.writeAtomically(to: path, wipes: true) { writer throws(CryptoError) in
            try body { bytes throws(CryptoError) in try writer.write(&bytes) }
        }
    }
}
