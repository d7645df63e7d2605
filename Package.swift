// swift-tools-version:6.2
// Strongroom — SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// `STRONGROOM_FUZZ=1` (Scripts/fuzz.sh) builds the libFuzzer binary: this package's own modules get libFuzzer's
/// coverage instrumentation and AddressSanitizer; dependencies are left as they are.
let fuzzing = Context.environment["STRONGROOM_FUZZ"] == "1"
let fuzzingSettings: [SwiftSetting] = fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address"])] : []

/// Settings every Strongroom target shares: Swift 6 mode, the upcoming features the conventions ask for, and
/// warnings as errors (applied to this package's own targets only, never to dependencies).
let strictSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .treatAllWarnings(as: .error),
    ] + fuzzingSettings

let package = Package(
    name: "Strongroom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StrongroomCore", targets: ["StrongroomCore"]),
        .library(name: "StrongroomCrypto", targets: ["StrongroomCrypto"]),
        .library(name: "StrongroomWire", targets: ["StrongroomWire"]),
        .library(name: "StrongroomClient", targets: ["StrongroomClient"]),
        .library(name: "StrongroomClientShield", targets: ["StrongroomClientShield"]),
        .library(name: "StrongroomTransport", targets: ["StrongroomTransport"]),
        .library(name: "StrongroomDatastore", targets: ["StrongroomDatastore"]),
        .library(name: "StrongroomSync", targets: ["StrongroomSync"]),
        .library(name: "StrongroomKeychain", targets: ["StrongroomKeychain"]),
        .library(name: "StrongroomPKI", targets: ["StrongroomPKI"]),
        .library(name: "StrongroomSecretService", targets: ["StrongroomSecretService"]),
        .library(name: "StrongroomShield", targets: ["StrongroomShield"]),
        .library(name: "StrongroomServer", targets: ["StrongroomServer"]),
        .library(name: "StrongroomBackend", targets: ["StrongroomBackend"]),
        .library(name: "StrongroomBackendPostgres", targets: ["StrongroomBackendPostgres"]),
        .library(name: "StrongroomServerPostgres", targets: ["StrongroomServerPostgres"]),
        .library(name: "StrongroomServerS3", targets: ["StrongroomServerS3"]),
        .library(name: "StrongroomTesting", targets: ["StrongroomTesting"]),
        .executable(name: "strongroom", targets: ["StrongroomCLI"]),
        .executable(name: "strongroom-server", targets: ["StrongroomServerApp"]),
        .executable(name: "strongroom-example-backend", targets: ["StrongroomExampleBackend"]),
        .executable(name: "strongroom-example-first-program", targets: ["StrongroomExampleFirstProgram"]),
    ] + (fuzzing ? [.executable(name: "strongroom-fuzz", targets: ["StrongroomFuzz"])] : []),
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        // Pinned to the minor version: the server's in-place record read (Storage/SQLiteRecordReader.swift, the
        // one file that does) calls the C API of sqlite-nio's bundled SQLite through its unexported module
        // VaporCSQLite, whose symbol names (sqlite_nio_sqlite3_*) are not a promise of the package.
        // SQLiteRecordReaderTests.symbols fails with a message naming them if an update renames them.
        .package(url: "https://github.com/vapor/sqlite-nio.git", .upToNextMinor(from: "1.13.2")),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        // DocC for every library in CI (Scripts/docs/build-docs.sh); a plugin, so nothing links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
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
        // sync_file_range is a GNU extension Swift's Glibc module leaves out: Swift reaches it through this shim.
        .target(name: "CFileSync"),
        .target(
            name: "StrongroomCrypto",
            dependencies: [
                "CFileSync",
                "CSodium",
                "StrongroomCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomWire",
            dependencies: ["StrongroomCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomTransport",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomPKI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomClient",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomWire",
                "StrongroomKeychain",
                "StrongroomPKI",
                "StrongroomTransport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        // The SDK and the shield together: a Client as the shield's integrity server, and files downloaded
        // straight into the shield's encrypted-at-rest form. Kept apart so the SDK does not link the shield.
        .target(
            name: "StrongroomClientShield",
            dependencies: [
                "StrongroomClient",
                "StrongroomCore",
                "StrongroomShield",
                "StrongroomTransport",
                "StrongroomWire",
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        // Replication of the datastore through the server: the record format first (docs/design/Replication.md).
        .target(
            name: "StrongroomSync",
            dependencies: [
                "StrongroomClient", "StrongroomCore", "StrongroomCrypto", "StrongroomDatastore", "StrongroomWire",
            ],
            swiftSettings: strictSettings
        ),
        // libsecret through hand-declared C (no pkg-config: its flags carry -pthread, which SwiftPM prohibits in a
        // dependency); Scripts/check-libsecret-declarations.sh checks the declarations against libsecret's headers.
        .target(
            name: "CLibSecret",
            linkerSettings: [
                .linkedLibrary("secret-1"), .linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0"),
                .linkedLibrary("glib-2.0"),
            ]
        ),
        .target(
            name: "StrongroomSecretService",
            dependencies: ["CLibSecret", "StrongroomCore", "StrongroomKeychain"],
            swiftSettings: strictSettings
        ),
        // Key pairs, CSRs, certificates, chains and PKCS#12; below the keychain, which stores what it makes.
        .target(
            name: "StrongroomPKI",
            dependencies: [
                "StrongroomCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomKeychain",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        // RE2 (Debian's libre2-dev) behind a small C shim: the server's REGEXP and WILDCARD search terms and the
        // datastore's $regex run in time linear in the value, never backtracking.
        .target(
            name: "CRE2",
            linkerSettings: [.linkedLibrary("re2")]
        ),
        // The Swift face of CRE2, shared by the server and the datastore: internal to the package, not a product.
        .target(
            name: "StrongroomRegex",
            dependencies: ["CRE2"],
            swiftSettings: strictSettings
        ),
        // SQLCipher 4 (Debian bookworm-backports, Scripts/install-sqlcipher.sh) for the encrypted datastore; never
        // the system libsqlite3 (the server's SQLite is sqlite-nio's prefixed copy).
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        // The datastore's thin SQLCipher layer: internal to the package, not a product.
        .target(
            name: "StrongroomSQLite",
            dependencies: ["CSQLCipher", "StrongroomCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomDatastore",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomKeychain",
                "StrongroomRegex",
                "StrongroomSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // prctl is variadic in C: Swift reaches it through this shim.
        .target(name: "CShield"),
        .target(name: "CAgent"),
        // Environment integrity, the shield object and its check-in protocol, the file protector.
        .target(
            name: "StrongroomShield",
            dependencies: [
                "CShield",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomKeychain",
                "StrongroomWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // For an app developer's own backend: Hummingbird middleware that verifies what ``SecureChannel`` sends
        // (TSV1 signatures, client certificates). Kept apart so that the SDK pulls in no server dependency.
        .target(
            name: "StrongroomBackend",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomPKI",
                "StrongroomShield",
                "StrongroomWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        // A PostgreSQL NonceStore for backends with several instances (kept apart: PostgresNIO only for those who
        // want it).
        .target(
            name: "StrongroomBackendPostgres",
            dependencies: [
                "StrongroomBackend",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Examples/Backend: a small Hummingbird backend an app developer would own, protected by StrongroomBackend
        // (BackendExampleTests runs it).
        .executableTarget(
            name: "StrongroomExampleBackend",
            dependencies: [
                "StrongroomBackend",
                "StrongroomCrypto",
                "StrongroomPKI",
                "StrongroomShield",
                "StrongroomWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Examples/Backend",
            swiftSettings: strictSettings
        ),
        // Examples/FirstProgram: the README's first Swift program, built with the package and run by
        // FirstProgramTests against a real server (the README shows this file's code).
        .executableTarget(
            name: "StrongroomExampleFirstProgram",
            dependencies: ["StrongroomClient"],
            path: "Examples/FirstProgram",
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomServer",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomPKI",
                "StrongroomRegex",
                "StrongroomWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // Pushes checkpoints to key log witnesses (C2SP tlog-witness).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                // VaporCSQLite, its C module, is reached only through this product (see the pin above).
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The OpenAPI description, compiled into the binary (served at GET /openapi.yaml; no bundle to ship).
            resources: [.embedInCode("openapi.yaml")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StrongroomServerPostgres",
            dependencies: [
                "StrongroomCore",
                "StrongroomServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // File bodies in an S3-compatible bucket, apart so that AsyncHTTPClient stays out of the server module.
        .target(
            name: "StrongroomServerS3",
            dependencies: [
                "StrongroomCore",
                "StrongroomServer",
                "StrongroomWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The test support's process start (posix_spawn with chdir and closefrom): Foundation's Process.run() on
        // Linux reads past a buffer in findMaximumOpenFromProcSelfFD() and crashes now and then
        // (swift-corelibs-foundation#5472), which killed whole test runs here.
        .target(name: "CSpawn", path: "Tests/CSpawn"),
        .target(
            name: "StrongroomTesting",
            dependencies: [
                "CSpawn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        // The server's test support: an in-process server on either engine, its registered clients, an S3 bucket
        // in the test object store, and the malicious key log the malicious-server tests hand the server.
        .target(
            name: "StrongroomServerTesting",
            dependencies: [
                "StrongroomClient",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomServer",
                "StrongroomServerPostgres",
                "StrongroomServerS3",
                "StrongroomTesting",
                "StrongroomWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The key log's append probe (Scripts/bench-keylog.sh): beside the benchmarks, not in the server.
        .executableTarget(
            name: "StrongroomKeyLogSpeed",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomServer",
                "StrongroomServerPostgres",
                "StrongroomWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            path: "Benchmarks/KeyLogSpeed",
            swiftSettings: strictSettings
        ),
        // A key log witness (C2SP tlog-witness): its own HTTP service, which `strongroom-server witness` only wires.
        .target(
            name: "StrongroomWitness",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrongroomServerApp",
            dependencies: [
                "StrongroomCore",
                "StrongroomWitness",
                "StrongroomPKI",
                "StrongroomServer",
                "StrongroomServerPostgres",
                "StrongroomServerS3",
                "StrongroomWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // `strongroom agent`'s socket protocol, server and client, as a library the CLI wires and tests drive.
        .target(
            name: "StrongroomAgent",
            dependencies: ["CAgent", "StrongroomClient", "StrongroomCore", "StrongroomKeychain"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "StrongroomCLI",
            dependencies: [
                "CAgent",
                "StrongroomAgent",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomClient",
                "StrongroomClientShield",
                "StrongroomDatastore",
                "StrongroomKeychain",
                "StrongroomPKI",
                "StrongroomSecretService",
                "StrongroomShield",
                "StrongroomSync",
                "StrongroomWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        // The strict-pool CI pass: one Swift concurrency thread for the whole test process (Scripts/test.sh).
        .target(name: "CStrictPool", path: "Tests/CStrictPool"),
        .testTarget(
            name: "StrongroomCoreTests",
            dependencies: ["StrongroomCore", "StrongroomTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomCryptoTests",
            dependencies: [
                "CFileSync",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomClientTests",
            dependencies: [
                "StrongroomKeychain",
                "StrongroomPKI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                "StrongroomClient",
                "StrongroomClientShield",
                "StrongroomShield",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomWire",
                "StrongroomTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomBackendTests",
            dependencies: [
                "StrongroomBackend",
                "StrongroomCrypto",
                "StrongroomPKI",
                "StrongroomShield",
                "StrongroomWire",
                "StrongroomTesting",
                "StrongroomTransport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomBackendPostgresTests",
            dependencies: [
                "StrongroomBackend",
                "StrongroomBackendPostgres",
                "StrongroomCrypto",
                "StrongroomTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomTransportTests",
            dependencies: [
                "CStrictPool",
                "StrongroomCore",
                "StrongroomTesting",
                "StrongroomTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomSQLiteTests",
            dependencies: ["StrongroomSQLite", "StrongroomCore", "StrongroomTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomSyncTests",
            dependencies: [
                "StrongroomSync", "StrongroomClient", "StrongroomCore", "StrongroomCrypto", "StrongroomDatastore",
                "StrongroomTesting", "StrongroomServerTesting", "StrongroomSQLite", "StrongroomWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomDatastoreTests",
            dependencies: [
                "StrongroomDatastore",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomKeychain",
                "StrongroomSQLite",
                "StrongroomTesting",
                "StrongroomWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomCLITests",
            dependencies: [
                "StrongroomClient", "StrongroomCore", "StrongroomCrypto", "StrongroomKeychain", "StrongroomTesting",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomAgentTests",
            dependencies: ["StrongroomAgent", "StrongroomCore", "StrongroomKeychain", "StrongroomTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomKeychainTests",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomKeychain",
                "StrongroomSecretService",
                "StrongroomTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomPKITests",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomKeychain",
                "StrongroomPKI",
                "StrongroomTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomShieldTests",
            dependencies: [
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomKeychain",
                "StrongroomShield",
                "StrongroomTesting",
                "StrongroomWire",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomWireTests",
            dependencies: [
                "StrongroomCore", "StrongroomTesting", "StrongroomWire",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StrongroomServerTests",
            dependencies: [
                // The SDK only to drive the key log's malicious-server tests against the in-process server.
                "StrongroomClient",
                "StrongroomCore",
                "StrongroomCrypto",
                "StrongroomWire",
                "StrongroomRegex",
                "StrongroomServer",
                "StrongroomWitness",
                "StrongroomServerPostgres",
                "StrongroomServerS3",
                "StrongroomServerTesting",
                "StrongroomTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSettings
        ),
    ]
)

if fuzzing {
    package.targets.append(
        .executableTarget(
            name: "StrongroomFuzz",
            dependencies: [
                "StrongroomCore", "StrongroomCrypto", "StrongroomDatastore", "StrongroomKeychain", "StrongroomPKI",
                "StrongroomServer", "StrongroomShield", "StrongroomWire", "StrongroomWitness",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Fuzz/StrongroomFuzz",
            swiftSettings: strictSettings,
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        )
    )
}
