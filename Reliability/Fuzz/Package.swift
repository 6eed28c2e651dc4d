// swift-tools-version: 6.2
// libFuzzer targets for Stowage (RELIABILITY.md, "Fuzzing"): a nested package that the root package's
// `swift build` never builds. Build and run them with ../fuzz.sh, which adds the sanitizer and coverage
// flags and links libFuzzer:
//
//     Reliability/fuzz.sh [SECONDS]
//
// fuzz-predicates   random predicates (the property tests' generator, driven by the fuzzer's bytes)
//                   fetched in SQL-only mode, compared with Foundation's `Predicate.evaluate`
// fuzz-open-store   arbitrary bytes opened as a store: typed errors only, refused files unchanged
import PackageDescription

let package = Package(
    name: "StowageFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Stowage", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver for Swift.
        .target(name: "CFuzzerDriver"),
        // PredicateGenerator.swift and PredicateModels.swift are symlinks to the property tests' files
        // (Tests/StowagePredicateTests), so that both use one generator.
        .executableTarget(
            name: "fuzz-predicates",
            dependencies: ["CFuzzerDriver", .product(name: "Stowage", package: "Stowage")]),
        .executableTarget(
            name: "fuzz-open-store",
            dependencies: ["CFuzzerDriver", .product(name: "Stowage", package: "Stowage"), .product(name: "GRDB", package: "GRDB.swift")]),
    ],
    swiftLanguageModes: [.v6]
)
