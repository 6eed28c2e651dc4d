// swift-tools-version: 6.1
// Benchmarks for Stowage: a nested package that users never build. See ../BENCHMARKS.md and run.sh.
//
//     swift build -c release --package-path Benchmarks                    # raw SQLite, GRDB, Stowage
//     swift build -c release --package-path Benchmarks --traits Fluent    # also Fluent (slow to build)
import PackageDescription

let package = Package(
    name: "StowageBenchmarks",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stowage-bench", targets: ["StowageBench"]),
    ],
    traits: [
        .trait(name: "Fluent", description: "Adds Fluent with fluent-sqlite-driver as a contender. Builds slowly."),
    ],
    dependencies: [
        .package(name: "Stowage", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", exact: "4.9.0"),
    ],
    targets: [
        .executableTarget(
            name: "StowageBench",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit", condition: .when(traits: ["Fluent"])),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver", condition: .when(traits: ["Fluent"])),
            ],
        ),
    ],
    swiftLanguageModes: [.v6]
)
