import Foundation
import GRDBSQLite
import ReopenFixtures
import Stowage
#if canImport(StowagePostgres)
import StowagePostgres
#endif

// Opens a store in a process of its own, for the reopening and migration tests:
//
//     stowage-reopen-probe create STORE Shelf,Book,...   creates and fills the store, prints its summary
//     stowage-reopen-probe read STORE Lamp,Book,...      opens it with the types in that order, prints its summary
//     stowage-reopen-probe trips-create|trips-read STORE Trip,BusinessTrip,...
//                                                        the same with the class hierarchy of
//                                                        InheritanceFixtures
//     stowage-reopen-probe migrate-fixture-create STORE ROWS
//                                                        creates a MigrationKillV1 store of ROWS entries,
//                                                        prints "created ROWS"
//     stowage-reopen-probe migrate STORE                 opens it with MigrationKillV3 and MigrationKillPlan,
//                                                        printing "opening", the custom stage's progress
//                                                        (unbuffered, one line each) and "migrated N"
//     stowage-reopen-probe hold-lock STORE SECONDS       takes the store's write lock (raw SQLite, BEGIN
//                                                        IMMEDIATE), prints "locked", holds it SECONDS, commits
//     stowage-reopen-probe save-lamps STORE COUNT        opens a Lamp store and saves COUNT lamps, one save
//                                                        each, then prints "saved COUNT"
//     stowage-reopen-probe set-watts STORE WATTS HISTORY sets every lamp's watts in one save, recording
//                                                        history when HISTORY is 1, then prints "set N"
//     stowage-reopen-probe postgres-writer URL FIRST     saves to the PostgreSQL database at URL until killed,
//                                                        each save a Mark (numbered from FIRST) and one more
//                                                        on the Tally, printing "ack N" once save N returned
//
// Exits 0 on success; on a StowageError prints "error <code>: <message>" and exits 1.

/// Writes a line to standard output at once (the migration test reads it while this process runs, and
/// may kill it right after).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: stowage-reopen-probe create|read STORE TYPE,TYPE,...
               stowage-reopen-probe migrate-fixture-create STORE ROWS
               stowage-reopen-probe migrate STORE

        """.utf8))
    exit(64)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { usage() }
let url = URL(fileURLWithPath: arguments[2])
do {
    switch (arguments[1], arguments.count) {
    case ("create", 4), ("read", 4):
        let container = try ReopenFixtures.open(url, types: arguments[3].split(separator: ",").map(String.init))
        if arguments[1] == "create" { try ReopenFixtures.fill(container) }
        print(try ReopenFixtures.summary(container))
    case ("trips-create", 4), ("trips-read", 4):
        let container = try InheritanceFixtures.open(url, types: arguments[3].split(separator: ",").map(String.init))
        if arguments[1] == "trips-create" { try InheritanceFixtures.fill(container) }
        print(try InheritanceFixtures.summary(container))
    case ("migrate-fixture-create", 4):
        guard let rows = Int(arguments[3]), rows >= 0 else { usage() }
        // The container is released before this prints, which closes the store (and checkpoints its WAL).
        try MigrationKillFixture.create(url, rows: rows)
        say("created \(rows)")
    case ("migrate", 3):
        MigrationKillFixture.progress = say
        say("opening")
        let count = try ModelContext(MigrationKillFixture.openMigrating(url)).fetchCount(FetchDescriptor<MigrationKillV3.Entry>())
        say("migrated \(count)")
    case ("hold-lock", 4):
        guard let seconds = Double(arguments[3]) else { usage() }
        var connection: OpaquePointer?
        guard sqlite3_open(url.path, &connection) == SQLITE_OK, sqlite3_exec(connection, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else {
            say("error lock: \(String(cString: sqlite3_errmsg(connection)))")
            exit(1)
        }
        say("locked")
        Thread.sleep(forTimeInterval: seconds)
        sqlite3_exec(connection, "COMMIT", nil, nil, nil)
        sqlite3_close(connection)
        say("released")
    case ("save-lamps", 4):
        guard let count = Int(arguments[3]) else { usage() }
        let context = ModelContext(try ReopenFixtures.open(url, types: ["Lamp"]))
        for index in 0..<count {
            context.insert(Lamp(watts: Double(index)))
            try context.save()
        }
        say("saved \(count)")
    case ("set-watts", 5):
        guard let watts = Double(arguments[3]) else { usage() }
        var configuration = ModelConfiguration(url: url)
        configuration.recordsHistory = arguments[4] == "1"
        let context = ModelContext(try ModelContainer(for: Lamp.self, configurations: configuration))
        let lamps = try context.fetch(FetchDescriptor<Lamp>())
        for lamp in lamps { lamp.watts = watts }
        try context.save()
        say("set \(lamps.count)")
    #if canImport(StowagePostgres)
    case ("postgres-writer", 4):
        guard let server = URL(string: arguments[2]), let first = Int(arguments[3]) else { usage() }
        let context = ModelContext(try ModelContainer(for: Tally.self, Mark.self, configurations: PostgresConfiguration(url: server)))
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        var sequence = first
        while true {
            let tally = try context.fetch(FetchDescriptor<Tally>()).first ?? {
                let tally = Tally(name: "saves", count: 0)
                context.insert(tally)
                return tally
            }()
            tally.count += 1
            context.insert(Mark(sequence: sequence, process: pid))
            try context.save()
            say("ack \(sequence)")
            sequence += 1
        }
    #endif
    default:
        usage()
    }
} catch let error as StowageError {
    print("error \(error.code): \(error.message)")
    exit(1)
}
