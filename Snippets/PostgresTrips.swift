// snippet.hide
// The same models on PostgreSQL: the configuration is the only change. Runs against the server named
// by STOWAGE_TEST_POSTGRES_URL (.ci/postgres.sh starts one), in a database of its own. Built without
// the PostgreSQL store (STOWAGE_WITHOUT_POSTGRES), it is empty.
#if canImport(StowagePostgres)
import Foundation
// snippet.show
// snippet.models
import Stowage
import StowagePostgres

@Model
final class Trip {
    @Attribute(.unique) var name: String
    var destination: String
    var startDate: Date

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}
// snippet.end
// snippet.hide
guard let server = ProcessInfo.processInfo.environment["STOWAGE_TEST_POSTGRES_URL"].flatMap(URL.init(string:)) else {
    print("STOWAGE_TEST_POSTGRES_URL is not set: nothing to run against")
    exit(0)
}
let database = "snippet_\(UUID().uuidString.prefix(8).lowercased())"
var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
let psql = Process()
psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
psql.arguments = [server.absoluteString, "-qc", "CREATE DATABASE \(database)"]
try psql.run()
psql.waitUntilExit()
components.path = "/" + database
let urlString = components.string!
defer {
    let drop = Process()
    drop.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
    drop.arguments = [server.absoluteString, "-qc", "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"]
    try? drop.run()
    drop.waitUntilExit()
}
// snippet.show
// snippet.usage
// postgres://user:password@host:port/database, or postgres://user@/database?host=/run/postgresql
let configuration = try PostgresConfiguration(url: URL(string: urlString)!)
let container = try ModelContainer(for: Trip.self, configurations: configuration)
let context = ModelContext(container)
context.insert(Trip(name: "Camping", destination: "Yosemite", startDate: Date(timeIntervalSince1970: 1_719_446_400)))
context.insert(Trip(name: "Summit", destination: "Berlin", startDate: Date(timeIntervalSince1970: 1_720_000_000)))
try context.save()    // one transaction

// The predicate and the sort run on the server.
let yosemite = try context.fetch(FetchDescriptor<Trip>(
    predicate: #Predicate { $0.destination == "Yosemite" }, sortBy: [SortDescriptor(\.startDate)]))
// snippet.end
// snippet.hide
precondition(yosemite.map(\.name) == ["Camping"])
#endif
