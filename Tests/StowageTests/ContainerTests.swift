import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Item 5: containers and configurations.
@Suite struct ContainerTests {
    @Test func inMemoryContainerForTypes() throws {
        let container = try ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entities.map(\.name) == ["Item", "Tag"])
        #expect(container.configurations.count == 1)
        #expect(container.configurations.first?.isStoredInMemoryOnly == true)
        let context = ModelContext(container)
        context.insert(Item(name: "a", value: 1))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 1)
    }

    @Test func twoInMemoryContainersDoNotShareData() throws {
        let first = try inMemoryContainer(Item.self)
        let second = try inMemoryContainer(Item.self)
        let context = ModelContext(first)
        context.insert(Item(name: "a", value: 1))
        try context.save()
        #expect(try ModelContext(second).fetchCount(FetchDescriptor<Item>()) == 0)
    }

    @Test func containerForSchemaAtAURLPersistsAcrossContainers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("nested/dirs/budgets.store")
        do {
            let container = try ModelContainer(for: Schema([Item.self]), configurations: ModelConfiguration(url: url))
            #expect(container.configurations.first?.url == url)
            #expect(container.configurations.first?.name == "budgets")
            let context = ModelContext(container)
            context.insert(Item(name: "kept", value: 7))
            try context.save()
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        let container = try ModelContainer(for: Schema([Item.self]), configurations: [ModelConfiguration(url: url)])
        let items = try ModelContext(container).fetch(FetchDescriptor<Item>())
        #expect(items.map(\.name) == ["kept"])
        #expect(items.map(\.value) == [7])
    }

    @Test func namedConfigurationWithSchemaURLAndAllowsSave() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("named.sqlite")
        let schema = Schema([Item.self])
        let configuration = ModelConfiguration("Main", schema: schema, url: url, allowsSave: false)
        #expect(configuration.name == "Main")
        #expect(configuration.url == url)
        #expect(configuration.schema === schema)
        #expect(!configuration.allowsSave)
        #expect(!configuration.isStoredInMemoryOnly)
        #expect(configuration.id == url, "SwiftData identifies a configuration by its URL")
        #expect(ModelConfiguration(url: url).allowsSave)
    }

    @Test func isStoredInMemoryOnlyConfigurations() throws {
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(configuration.isStoredInMemoryOnly)
        #expect(configuration.allowsSave)
        let forTypes = ModelConfiguration(for: Item.self, isStoredInMemoryOnly: true)
        #expect(forTypes.isStoredInMemoryOnly)
        #expect(forTypes.schema?.entities.map(\.name) == ["Item"])
        let named = ModelConfiguration("Previews", schema: Schema([Item.self]), isStoredInMemoryOnly: true, allowsSave: true)
        #expect(named.name == "Previews" && named.isStoredInMemoryOnly)
        let container = try ModelContainer(for: Item.self, configurations: named)
        let context = ModelContext(container)
        context.insert(Item(name: "a", value: 1))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 1)
    }

    @Test func seedBetaSpellings() throws {
        let configuration = ModelConfiguration(inMemory: true)
        #expect(configuration.isStoredInMemoryOnly)
        let container = try ModelContainer(for: Budget.self, ModelConfiguration(inMemory: true))
        #expect(container.configurations.first?.isStoredInMemoryOnly == true)
        #expect(container.schema.entities.map(\.name) == ["Budget", "Expense"])
        let context = ModelContext(container)
        context.insert(Budget(name: "Groceries", limit: 500))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Budget>()).map(\.name) == ["Groceries"])
    }

    @Test func defaultLocationIsDocumented() {
        let configuration = ModelConfiguration()
        #expect(configuration.name == "default")
        #expect(!configuration.isStoredInMemoryOnly)
        #expect(configuration.url == ModelConfiguration.defaultDirectory.appendingPathComponent("default.store"))
        #expect(ModelConfiguration("Budgets").url.lastPathComponent == "Budgets.store")
        let executable = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).lastPathComponent
        #expect(ModelConfiguration.defaultDirectory.lastPathComponent == executable)
        #if !canImport(Darwin)
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"] ?? (NSHomeDirectory() + "/.local/share")
        #expect(ModelConfiguration.defaultDirectory.deletingLastPathComponent().standardizedFileURL.path
                == URL(fileURLWithPath: base).standardizedFileURL.path)
        #endif
    }

    @Test func contextsDefaultToNoAutosave() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        #expect(context.container === container)
    }

    @MainActor
    @Test func mainContextAutosavesSoonAfterAnInsertAndAChange() async throws {
        let container = try inMemoryContainer(Item.self)
        let main = container.mainContext
        #expect(main === container.mainContext)
        #expect(main.autosaveEnabled)
        let item = Item(name: "autosaved", value: 1)
        main.insert(item)
        #expect(main.hasChanges)
        let observer = ModelContext(container)
        try await waitUntil { try observer.fetchCount(FetchDescriptor<Item>()) == 1 }
        #expect(try observer.fetchCount(FetchDescriptor<Item>()) == 1)
        #expect(!main.hasChanges)

        item.value = 2
        #expect(main.hasChanges)
        try await waitUntil { try observer.fetch(FetchDescriptor<Item>()).first?.value == 2 }
        #expect(try observer.fetch(FetchDescriptor<Item>()).first?.value == 2)
        #expect(!main.hasChanges)
    }

    /// Autosave is a task queued on the main actor by a change. Draining the main actor's queue (see
    /// `drainMainActor`) runs any autosave already queued, so "nothing was saved after the drain" proves
    /// that none was; the same drain saving once autosave is on is the control.
    @MainActor
    @Test func mainContextAutosaveCanBeTurnedOff() async throws {
        let container = try inMemoryContainer(Item.self)
        let main = container.mainContext
        main.autosaveEnabled = false
        let item = Item(name: "manual", value: 1)
        main.insert(item)
        await drainMainActor()
        #expect(main.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)

        // Control: turning autosave on again queues a save of the pending insert, and the drain runs it.
        main.autosaveEnabled = true
        #expect(main.hasChanges, "autosave saves later, not inside the setter")
        await drainMainActor()
        #expect(!main.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Item>()).map(\.value) == [1])

        // An autosave queued before autosave is turned off does not save when it runs.
        item.value = 2
        main.autosaveEnabled = false
        await drainMainActor()
        #expect(main.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Item>()).map(\.value) == [1])
    }

    /// Runs the jobs already queued on the main actor (an autosave among them): the main executor runs
    /// jobs in order, so awaiting a main-actor task queued now suspends the caller until those before it
    /// ran. Repeated, so that jobs they queue run as well.
    @MainActor
    private func drainMainActor() async {
        for _ in 0..<5 {
            await Task { @MainActor in }.value
            await Task.yield()
        }
    }

    /// Polls `condition` on the main actor, yielding between attempts, for at most a few seconds.
    @MainActor
    private func waitUntil(_ condition: () throws -> Bool) async throws {
        for _ in 0..<500 {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
