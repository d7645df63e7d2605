// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new file beside `destination` that gets that name only on ``commit()``. It is unnamed while written
/// (`O_TMPFILE`), so a process killed half-way leaves no partial file (and no partial plaintext): the kernel frees
/// it. Where the file system lacks unnamed files, a hidden `.strongroom-<uuid>.partial` registered with
/// `StagedFiles` stands in, so an interrupted program can remove it. Released without a commit, it leaves nothing.
final class StagedOutput {
    private let destination: String
    /// The named stand-in, where the file system has no unnamed files (nil otherwise).
    private let temporaryPath: String?
    private let registration: UInt64?
    private var file: BlockingFile?
    private var committed = false
    /// The descriptor to write through.
    let descriptor: Int32

    /// Prepares a file for `destination`, which must not exist.
    ///
    /// - Throws: ``CryptoError/Code/io`` when it exists or its folder is not writable.
    init(creating destination: String) throws(CryptoError) {
        guard access(destination, F_OK) != 0 else { throw CryptoError(.exists, "the destination already exists") }
        self.destination = destination
        let unnamed = BlockingFile.createUnnamed(beside: destination)
        let file: BlockingFile
        if unnamed >= 0 {
            (temporaryPath, registration) = (nil, nil)
            file = BlockingFile(descriptor: unnamed)
        } else {
            let path = FileCipher.temporaryPath(beside: destination)
            file = try BlockingFile.createExclusive(path)
            (temporaryPath, registration) = (path, StagedFiles.register(path))
        }
        descriptor = file.descriptor
        self.file = consume file
    }

    /// Flushes what was written to stable storage.
    func sync() throws(CryptoError) { try file?.sync() }

    /// Gives the complete file its name (never replacing a file that appeared there meanwhile).
    func commit() throws(CryptoError) {
        if let temporaryPath {
            try FileCipher.moveIntoPlace(temporaryPath, to: destination)
        } else {
            try file?.link(to: destination)
        }
        committed = true
    }

    deinit {
        file = nil  // closes the descriptor (an unnamed file that was never linked is freed here)
        if !committed, let temporaryPath { unlink(temporaryPath) }
        if let registration { StagedFiles.unregister(registration) }
    }
}
