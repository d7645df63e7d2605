// swift-tools-version:6.2
// Strongroom — SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// Settings every Strongroom target shares: Swift 6 mode, the upcoming features the conventions ask for, and
/// warnings as errors (applied to this package's own targets only, never to dependencies).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Strongroom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StrongroomCore", targets: ["StrongroomCore"]),
        .library(name: "StrongroomCrypto", targets: ["StrongroomCrypto"]),
        .executable(name: "strongroom", targets: ["StrongroomCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .target(
            name: "StrongroomCore",
            dependencies: ["CSodium"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomCrypto",
            dependencies: [
                "CSodium",
                "StrongroomCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrongroomCLI",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomCoreTests",
            dependencies: ["StrongroomCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomCryptoTests",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
    ]
)
