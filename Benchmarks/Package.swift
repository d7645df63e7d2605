// swift-tools-version:6.2
// Strongroom — SPDX-License-Identifier: Apache-2.0
// Benchmarks live in their own package so that `swift test` never builds them. Run from the repository root:
//   Scripts/bench.sh
import PackageDescription

let package = Package(
    name: "StrongroomBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strongroom", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "StrongroomClientBenchmark",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "StrongroomClient", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomMutualTLSBenchmark",
            dependencies: [
                .product(name: "StrongroomClient", package: "Strongroom"),
                .product(name: "StrongroomKeychain", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomKeychainBenchmark",
            dependencies: [
                .product(name: "StrongroomCore", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
                .product(name: "StrongroomKeychain", package: "Strongroom"),
                .product(name: "StrongroomSecretService", package: "Strongroom"),
            ]
        ),
        // The raw C API anchor for the datastore benchmark: the same Debian SQLCipher the datastore links.
        .systemLibrary(name: "CSQLCipherBench", path: "Sources/CSQLCipherBench"),
        .executableTarget(
            name: "StrongroomDatastoreBenchmark",
            dependencies: [
                "CSQLCipherBench",
                .product(name: "StrongroomCore", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
                .product(name: "StrongroomDatastore", package: "Strongroom"),
                .product(name: "StrongroomWire", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomShieldBenchmark",
            dependencies: [
                .product(name: "StrongroomCore", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
                .product(name: "StrongroomKeychain", package: "Strongroom"),
                .product(name: "StrongroomShield", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomSyncBenchmark",
            dependencies: [
                .product(name: "StrongroomClient", package: "Strongroom"),
                .product(name: "StrongroomCore", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
                .product(name: "StrongroomDatastore", package: "Strongroom"),
                .product(name: "StrongroomSync", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomKeyLogBenchmark",
            dependencies: [
                .product(name: "StrongroomClient", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomLiveBenchmark",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "StrongroomClient", package: "Strongroom"),
                .product(name: "StrongroomCore", package: "Strongroom"),
            ]
        ),
        .executableTarget(
            name: "StrongroomRotationBenchmark",
            dependencies: [.product(name: "StrongroomClient", package: "Strongroom")]
        ),
        .executableTarget(
            name: "StrongroomBenchmarks",
            dependencies: [
                .product(name: "StrongroomCore", package: "Strongroom"),
                .product(name: "StrongroomCrypto", package: "Strongroom"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
