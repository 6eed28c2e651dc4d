import Foundation
import Stowage
import Testing

// Code written against SwiftData's `SwiftDataError` compiles and behaves: `catch let … as
// SwiftDataError`, `==` with its static members, `catch SwiftDataError.case`; Stowage's detailed
// message stays available.

@Model final class Reading {
    var value: Double
    init(value: Double) { self.value = value }
}

@Suite("SwiftDataError")
struct SwiftDataErrorTests {
    @Test func migrationErrorsAreSwiftDatasCases() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try ModelContainer(for: Schema(versionedSchema: NotesStricter.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))

        var caught: SwiftDataError?
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
        } catch SwiftDataError.backwardMigration {
            caught = .backwardMigration
        } catch {
            Issue.record("expected SwiftDataError.backwardMigration, got \(error)")
        }
        #expect(caught == .backwardMigration)

        do {
            _ = try ModelContainer(for: NotesRetyped.Note.self, configurations: ModelConfiguration(url: url))
            Issue.record("a retyped attribute must not open")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error != .backwardMigration && error != .unknownSchema)
            #expect(error.code == .schemaMismatch, "Stowage's finer code")
            #expect(error.message.contains("custom MigrationStage"), "the detailed message: \(error.message)")
            #expect("\(error)".contains("SwiftDataError.loadIssueModelContainer"), "\(error)")
        }
    }

    @Test func openFailuresAreLoadIssuesAndStrictFetchesUnsupportedPredicates() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try Data("not a database, not at all".utf8).write(to: url)
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            _ = try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: url))
        }

        let context = ModelContext(try ModelContainer(for: Reading.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.requiresSQLTranslation = true
        let half = 0.5
        do {
            // A divisor that may be zero: ±infinity or NaN in Swift, NULL in SQL.
            _ = try context.fetch(FetchDescriptor<Reading>(predicate: #Predicate { $0.value / $0.value > half }))
            Issue.record("strict mode must refuse a predicate SQL cannot run")
        } catch let error as SwiftDataError where error == .unsupportedPredicate {
            #expect(error.code == .unsupportedPredicate && error.entityName == "Reading")
        }
    }

    @Test func equalityAndHashingFollowSwiftDatasCases() {
        let open = StowageError(.notADatabase, "one message")
        let missing = StowageError(.storeNotFound, "another message")
        #expect(open == missing && open == .loadIssueModelContainer)
        #expect(Set([open, missing, .loadIssueModelContainer]).count == 1)
        #expect(StowageError(.constraintViolation, "duplicate") == .modelValidationFailure)
        #expect(StowageError(.deletedModel, "gone") != .modelValidationFailure)
        #expect(StowageError(.deletedModel, "gone") == StowageError(.deletedModel, "also gone"))
        let all: [SwiftDataError] = [
            .includePendingChangesWithBatchSize, .sortingPendingChangesWithIdentifiers, .unsupportedKeyPath,
            .unsupportedPredicate, .unsupportedSortDescriptor, .historyTokenExpired, .invalidTransactionFetchRequest,
            .configurationFileNameContainsInvalidCharacters, .configurationFileNameTooLong,
            .configurationSchemaNotFoundInContainerSchema, .duplicateConfiguration, .loadIssueModelContainer,
            .modelValidationFailure, .missingModelContext, .backwardMigration, .unknownSchema, .unknownDataStoreSchema,
        ]
        #expect(Set(all).count == all.count, "SwiftData's cases are distinct")
    }
}
