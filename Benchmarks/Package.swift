// swift-tools-version: 6.1
// Benchmarks for Stowage: a nested package that users never build. See ../BENCHMARKS.md and run.sh.
//
//     swift build -c release --package-path Benchmarks                    # raw SQLite, GRDB, Stowage
//     swift build -c release --package-path Benchmarks --traits Fluent    # also Fluent (slow to build)
//     swift build -c release --package-path Benchmarks --traits Postgres  # the PostgreSQL workloads
import PackageDescription

let package = Package(
    name: "StowageBenchmarks",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "stowage-bench", targets: ["StowageBench"]),
    ],
    traits: [
        .trait(name: "Fluent", description: "Adds Fluent with fluent-sqlite-driver as a contender (and fluent-postgres-driver with Postgres). Builds slowly."),
        .trait(name: "Postgres", description: "Adds the PostgreSQL workloads (--postgres URL): Stowage's PostgreSQL store against raw postgres-nio."),
    ],
    dependencies: [
        .package(name: "Stowage", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver", exact: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", exact: "2.14.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
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
                .product(name: "StowagePostgres", package: "Stowage", condition: .when(traits: ["Postgres"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver", condition: .when(traits: ["Fluent"])),
            ],
        ),
    ],
    swiftLanguageModes: [.v6]
)
