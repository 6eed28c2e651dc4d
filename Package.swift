// swift-tools-version: 6.2
import CompilerPluginSupport
import Foundation
import PackageDescription

// The macro plugin's swift-syntax. A Swift 6.3 compiler ends its session with a plugin by sending an
// empty message, which swift-syntax before 603 reads as truncated JSON: each plugin process then prints
// "Internal Error: DecodingError.dataCorrupted ... Corrupted JSON" as it exits, although the build
// succeeds. 603 reads the empty message as the end of the session.
#if compiler(>=6.3)
let swiftSyntax = Package.Dependency.package(url: "https://github.com/swiftlang/swift-syntax", "603.0.1"..<"604.0.0")
#else
let swiftSyntax = Package.Dependency.package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0")
#endif

// Platforms without Apple's SwiftData: there the `SwiftData` product is a module named SwiftData that
// re-exports Stowage, so that `import SwiftData` compiles unchanged. On Apple platforms the module is
// empty and depends on nothing: a package depends on the product only on these platforms
// (`condition: .when(platforms: [.linux])`), and its `import SwiftData` is Apple's framework elsewhere.
// Building the target on an Apple platform (as `swift build` of this package does, for the snippets)
// puts an empty SwiftData module in .build, which would hide Apple's from the targets here: the
// sources that import SwiftData (Tests/RealCodeTests, Snippets/ImportSwiftData.swift) are compiled on
// other platforms only.
let withoutSwiftData: [Platform] = [.linux, .windows, .android, .openbsd, .wasi]

// `STOWAGE_WITHOUT_POSTGRES=1` leaves out of the package what SwiftNIO carries: the PostgreSQL store, and
// the servers (Stowage Studio, the example todo server, and with Studio the `stowage studio` command).
// The Thread Sanitizer run (Reliability/tsan.sh), whose tests use none of them, would otherwise build
// SwiftNIO, swift-crypto, postgres-nio and Hummingbird a second time, under TSan.
let withServers = ProcessInfo.processInfo.environment["STOWAGE_WITHOUT_POSTGRES"] == nil

// `STOWAGE_TEST_TARGETS=A,B` keeps only those test targets, and of the examples only what they use: the
// Thread Sanitizer run (Reliability/tsan.sh) then builds what its tests need, not every test target
// and example a second time under TSan.
let onlyTestTargets = ProcessInfo.processInfo.environment["STOWAGE_TEST_TARGETS"].map { Set($0.split(separator: ",").map(String.init)) }

let package = Package(
    name: "Stowage",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "Stowage", targets: ["Stowage"]),
        // Architecture layers beyond SwiftData's API (queryable values with live queries, value types
        // with mocks), kept out of `import Stowage` so that it stays SwiftData's surface.
        .library(name: "StowageQueries", targets: ["StowageQueries"]),
        // `import SwiftData` on platforms without Apple's SwiftData (see `withoutSwiftData` above).
        .library(name: "SwiftData", targets: ["SwiftData"]),
        // The `stowage` command: see, check, export and import any store without the app's models.
        .executable(name: "stowage", targets: ["stowage-command"]),
        // The `stowage` command's subcommands for an app's own command line, with its models (`MyApp
        // stowage migrate --dry-run`), and the store reader Stowage Studio is built on. swift-argument-parser
        // is built only for these two products.
        .library(name: "StowageCommands", targets: ["StowageCommands"]),
    ] + (withServers ? [
        // The PostgreSQL store (`PostgresConfiguration`): the only product that builds postgres-nio.
        .library(name: "StowagePostgres", targets: ["StowagePostgres"]),
        // Stowage Studio: a store in the browser, live and editable, for an app's own Hummingbird server
        // (`stowage studio STORE` serves it on its own).
        .library(name: "StowageStudio", targets: ["StowageStudio"]),
        // The example JSON server (Examples/TodoServer): Hummingbird over SQLite or PostgreSQL.
        .executable(name: "todo-server", targets: ["todo-server"]),
    ] : []),
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        swiftSyntax,
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation` (.ci/docs builds the documentation with docc directly).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ] + (withServers ? [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Stowage Studio and the example server; without its default traits (swift-configuration support).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ] : []),
    targets: [
        // Runtime: schema, container, context, query translation and the SQLite store. No swift-syntax.
        .target(
            name: "StowageCore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Compiler plugin implementing @Model, @Attribute, @Relationship, @Transient, #Unique, #Index.
        .macro(
            name: "StowageMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        // Umbrella module: macro declarations and re-exports. `import Stowage` replaces `import SwiftData`.
        .target(name: "Stowage", dependencies: ["StowageCore", "StowageMacros"]),
        // Queryable/QueryFilter/QueryResults/Query, WrappedID and the mock-friendly value protocols.
        .target(name: "StowageQueries", dependencies: ["Stowage"]),
        // `@_exported import Stowage` under the name SwiftData, on platforms without Apple's SwiftData.
        .target(name: "SwiftData", dependencies: [.target(name: "Stowage", condition: .when(platforms: withoutSwiftData))]),

        // The `stowage` command (Tools/): a model-free reader and writer of stores (StowageTools), the
        // commands over it (StowageCommands), and the executable.
        .target(name: "StowageTools", dependencies: ["StowageCore", .product(name: "GRDB", package: "GRDB.swift")], path: "Tools/Sources/StowageTools"),
        .target(
            name: "StowageCommands",
            dependencies: ["Stowage", "StowageTools", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/Sources/StowageCommands"),
        .executableTarget(
            name: "stowage-command",
            dependencies: ["StowageCommands", .product(name: "ArgumentParser", package: "swift-argument-parser")] + (withServers ? ["StowageStudio"] : []),
            path: "Tools/Sources/stowage"),
        .testTarget(
            name: "StowageToolsTests",
            dependencies: [
                "StowageCommands", "StowageTools", "SpendSmartKit", "RecipesKit", "ExampleTestSupport", "ReliabilityKit",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tools/Tests/StowageToolsTests", exclude: ["Golden"]),

        // Examples: logic in a small module, a thin executable. ExampleSupport holds their shared
        // plumbing (console, errors, command-line options), ExampleTestSupport their tests' helpers.
        .target(name: "ExampleSupport", dependencies: ["Stowage"], path: "Examples/Shared/Sources/ExampleSupport"),
        .target(name: "SpendSmartKit", dependencies: ["Stowage", "ExampleSupport"], path: "Examples/SpendSmart/Sources/SpendSmartKit"),
        .executableTarget(name: "spendsmart", dependencies: ["SpendSmartKit", "StowageCommands"], path: "Examples/SpendSmart/Sources/spendsmart"),
        .target(name: "RecipesKit", dependencies: ["Stowage", "ExampleSupport"], path: "Examples/Recipes/Sources/RecipesKit"),
        .executableTarget(name: "recipes", dependencies: ["RecipesKit"], path: "Examples/Recipes/Sources/recipes"),

        // Models for the reopening tests, and the program those tests launch to open a store in a fresh
        // process (`swift test` builds it with every other product).
        .target(name: "ReopenFixtures", dependencies: ["Stowage"], path: "Tests/ReopenFixtures"),
        .executableTarget(
            name: "stowage-reopen-probe",
            dependencies: ["ReopenFixtures", .product(name: "GRDBSQLite", package: "GRDB.swift")] + (withServers ? ["StowagePostgres"] : []),
            path: "Tests/ReopenProbe"),
        // Models and app code in a target whose default isolation is the main actor (Xcode 26's app default).
        .target(name: "MainActorModels", dependencies: ["Stowage"], path: "Tests/MainActorModels",
                swiftSettings: [.defaultIsolation(MainActor.self)]),
        .testTarget(
            name: "StowageTests",
            dependencies: ["Stowage", "ReopenFixtures", "MainActorModels", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "StowagePredicateTests", dependencies: ["Stowage"]),
        .testTarget(
            name: "StowageRelationshipTests",
            dependencies: ["Stowage", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "StowageModelTests", dependencies: ["Stowage"]),
        // The model layers of open-source SwiftData apps, in their spellings, through `import SwiftData`;
        // Swift 5 language mode, as those apps are (`static var versionIdentifier = ...` is an error in Swift 6).
        .testTarget(
            name: "RealCodeTests", dependencies: [.target(name: "SwiftData", condition: .when(platforms: withoutSwiftData))],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "StowageMacrosTests",
            dependencies: [
                "StowageMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        .target(name: "ExampleTestSupport", dependencies: ["ExampleSupport"], path: "Examples/Shared/Tests/ExampleTestSupport"),
        .testTarget(
            name: "ExampleSupportTests", dependencies: ["ExampleSupport", "ExampleTestSupport"],
            path: "Examples/Shared/Tests/ExampleSupportTests"),
        .testTarget(
            name: "SpendSmartTests", dependencies: ["SpendSmartKit", "ExampleTestSupport"],
            path: "Examples/SpendSmart/Tests/SpendSmartTests"),
        .testTarget(
            name: "RecipesTests", dependencies: ["RecipesKit", "ExampleTestSupport"],
            path: "Examples/Recipes/Tests/RecipesTests"),

        .target(name: "RemindersKit", dependencies: ["Stowage", "ExampleSupport"], path: "Examples/Reminders/Sources/RemindersKit"),
        .executableTarget(name: "reminders", dependencies: ["RemindersKit"], path: "Examples/Reminders/Sources/reminders"),
        .testTarget(
            name: "RemindersTests", dependencies: ["RemindersKit", "ExampleTestSupport"],
            path: "Examples/Reminders/Tests/RemindersTests"),

        .target(name: "UsersKit", dependencies: ["Stowage", "ExampleSupport"], path: "Examples/Users/Sources/UsersKit"),
        .executableTarget(name: "users", dependencies: ["UsersKit"], path: "Examples/Users/Sources/users"),
        .testTarget(
            name: "UsersTests", dependencies: ["UsersKit", "ExampleTestSupport"],
            path: "Examples/Users/Tests/UsersTests"),

        .target(name: "ContactsKit", dependencies: ["Stowage", "StowageQueries", "ExampleSupport"], path: "Examples/Contacts/Sources/ContactsKit"),
        .executableTarget(name: "contacts", dependencies: ["ContactsKit"], path: "Examples/Contacts/Sources/contacts"),
        .testTarget(
            name: "ContactsTests", dependencies: ["ContactsKit", "ExampleTestSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Examples/Contacts/Tests/ContactsTests"),

        .target(name: "TodoKit", dependencies: ["Stowage", "StowageQueries", "ExampleSupport"], path: "Examples/Todo/Sources/TodoKit"),
        .executableTarget(name: "todo", dependencies: ["TodoKit"], path: "Examples/Todo/Sources/todo"),
        .testTarget(
            name: "TodoTests", dependencies: ["TodoKit", "ExampleTestSupport"],
            path: "Examples/Todo/Tests/TodoTests"),
        .testTarget(name: "StowageQueriesTests", dependencies: ["StowageQueries"]),

        // The reliability suite (RELIABILITY.md): scenarios in a library, a command that runs them at full
        // size (and is the child process of the crash, fault and multi-process scenarios), quick variants
        // as tests. CStowageFaults is a fault-injecting SQLite VFS.
        .target(
            name: "CStowageFaults", path: "Reliability/Sources/CStowageFaults",
            linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "ReliabilityKit",
            dependencies: ["Stowage", "CStowageFaults", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Reliability/Sources/ReliabilityKit"),
        .executableTarget(name: "stowage-reliability", dependencies: ["ReliabilityKit"], path: "Reliability/Sources/stowage-reliability"),
        .testTarget(name: "ReliabilityTests", dependencies: ["ReliabilityKit"], path: "Reliability/Tests/ReliabilityTests"),
    ] + (withServers ? [
        // The PostgreSQL store's connections (postgres-nio); the store itself is in StowageCore, beside SQLite's.
        .target(
            name: "StowagePostgres",
            dependencies: ["Stowage", "StowageCore", .product(name: "PostgresNIO", package: "postgres-nio")]),
        // Against a real PostgreSQL server: STOWAGE_TEST_POSTGRES_URL (.ci/postgres.sh starts one), a database
        // of its own per test (PostgresTestSupport).
        .target(name: "PostgresTestSupport", dependencies: ["Stowage", "StowageCore", "StowagePostgres"], path: "Tests/PostgresTestSupport"),
        .testTarget(
            name: "StowagePostgresTests",
            dependencies: ["StowagePostgres", "PostgresTestSupport", "ReopenFixtures", .product(name: "PostgresNIO", package: "postgres-nio")]),

        // Stowage Studio (Tools/Sources/StowageStudio): pages, their JSON, live updates and edits over
        // StowageTools' reader and editor, or over an app's container.
        .target(
            name: "StowageStudio",
            dependencies: [
                "Stowage", "StowageTools", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Tools/Sources/StowageStudio"),
        .testTarget(
            name: "StowageStudioTests",
            dependencies: [
                "StowageStudio", "StowageTools", "ExampleTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            path: "Tools/Tests/StowageStudioTests"),

        // A JSON API over lists and their items, on an SQLite file or on PostgreSQL (`--postgres URL`).
        .target(
            name: "TodoServerKit",
            dependencies: ["Stowage", "StowagePostgres", .product(name: "Hummingbird", package: "hummingbird")],
            path: "Examples/TodoServer/Sources/TodoServerKit"),
        .executableTarget(name: "todo-server", dependencies: ["TodoServerKit"], path: "Examples/TodoServer/Sources/todo-server"),
        .testTarget(
            name: "TodoServerTests",
            dependencies: ["TodoServerKit", "PostgresTestSupport", "ExampleTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird")],
            path: "Examples/TodoServer/Tests/TodoServerTests"),
    ] : []),
    swiftLanguageModes: [.v6]
)

if let kept = onlyTestTargets {
    var needed = kept
    var grew = true
    while grew {
        grew = false
        for target in package.targets where needed.contains(target.name) {
            for dependency in target.dependencies {
                switch dependency {
                case .targetItem(let name, _), .byNameItem(let name, _):
                    if needed.insert(name).inserted { grew = true }
                default:
                    break
                }
            }
        }
    }
    package.targets.removeAll { target in
        target.type == .test ? !kept.contains(target.name) : target.path?.hasPrefix("Examples/") == true && !needed.contains(target.name)
    }
}
