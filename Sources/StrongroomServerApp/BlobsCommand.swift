// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import StrongroomServer

/// `strongroom-server blobs`: maintenance of the file-body store.
struct BlobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blobs",
        abstract: "Maintain the store of file bodies.",
        subcommands: [Sweep.self]
    )

    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove what unfinished uploads left behind (an instance killed mid-upload) and print the count."
        )
        @OptionGroup var data: DataOptions
        @OptionGroup var blobs: BlobStoreOptions
        @Option(help: "Only uploads started at least this many seconds ago (default 86400; 0 includes running ones).")
        var olderThan: Int64 = 86_400

        func validate() throws {
            guard (0...(Int64(1) << 40)).contains(olderThan) else {
                throw ValidationError("--older-than is a number of seconds from 0")
            }
        }

        func run() async throws {
            let removed = try await data.withStore { store in
                try await removeAbandonedUploads(
                    store: store,
                    blobStorage: blobs.blobStore,
                    objectStore: try blobs.objectStore(),
                    dataDirectory: data.dataDirectory,
                    olderThan: .seconds(olderThan)
                )
            }
            print("removed \(removed) unfinished upload\(removed == 1 ? "" : "s")")
        }
    }
}
