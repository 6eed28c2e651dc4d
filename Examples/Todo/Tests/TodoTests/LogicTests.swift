import Foundation
import StowageQueries
import Testing
@testable import TodoKit

/// The app logic, each test written once and run on every backend: mocks with no database, an
/// in-memory store, and a store file read back through a new container. The expectations are the same
/// on all three: titles, counts, order and errors.
@Suite struct LogicTests {
    @Test(arguments: Backend.allCases)
    func groupsAreTrimmedAndListedByTitleAsPeopleReadThem(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        for title in ["  Work ", "item 10", "Home", "item 2", "Éclairs"] {
            try logic.addGroup(title)
        }
        let expected = ["Éclairs", "Home", "item 2", "item 10", "Work"]
        #expect(try logic.groupTitles() == expected)
        #expect(try logic.groups().map(\.wrappedValue.taskCount) == [0, 0, 0, 0, 0])
        #expect(try fixture.reopen().groupTitles() == expected)
    }

    @Test(arguments: Backend.allCases)
    func blankTitlesAreRefusedAndNothingIsWritten(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        #expect(throws: TodoError(.blankTitle, "a group needs a title that is not blank.")) { try logic.addGroup(" \n ") }
        #expect(throws: TodoError(.blankTitle, "a group needs a title that is not blank.")) { try logic.renameGroup(home, to: "") }
        #expect(throws: TodoError(.blankTitle, "a task needs a title that is not blank.")) { try logic.addTask("  ", to: home) }
        let reopened = try fixture.reopen()
        #expect(try reopened.summaries() == [GroupSummary(title: "Home", open: 0, completed: 0)])
    }

    @Test(arguments: Backend.allCases)
    func groupTitlesAreUniqueWithoutRegardToCase(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        let work = try logic.addGroup("Work")
        let taken = TodoError(.duplicateGroup, "there is already a group named \"Home\". Run \"todo groups\" to see the groups.")
        #expect(throws: taken) { try logic.addGroup("home") }
        #expect(throws: taken) { try logic.addGroup(" HOME ") }
        #expect(throws: taken) { try logic.renameGroup(work, to: "hOME") }
        // A group may change the case of its own title.
        try logic.renameGroup(home, to: "HOME")
        try logic.renameGroup(work, to: " Office ")
        #expect(try logic.groupTitles() == ["HOME", "Office"])
        #expect(try fixture.reopen().groupTitles() == ["HOME", "Office"])
    }

    @Test(arguments: Backend.allCases)
    func groupsAreFoundByTitleWithoutRegardToCase(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home Office")
        #expect(try logic.group(titled: "home office").id == home)
        #expect(try logic.group(titled: "  HOME OFFICE ").wrappedValue.title == "Home Office")
        #expect(throws: TodoError(.unknownGroup, "no group named \"Home\". Run \"todo groups\" to see the groups.")) {
            try logic.group(titled: " Home")
        }
    }

    @Test(arguments: Backend.allCases)
    func tasksAreListedOpenFirstThenDoneEachInTheOrderAdded(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        for title in ["Buy milk", " Fix the tap", "Call the plumber", "Water the plants"] {
            try logic.addTask(title, to: home)
        }
        try logic.complete(taskTitled: "call the plumber", in: home)
        try logic.complete(taskTitled: "Buy milk", in: home)
        let expected = ["[ ] Fix the tap", "[ ] Water the plants", "[x] Buy milk", "[x] Call the plumber"]
        #expect(try logic.taskLines("Home") == expected)
        #expect(try logic.summaries() == [GroupSummary(title: "Home", open: 2, completed: 2)])
        #expect(try logic.groups().map(\.wrappedValue.taskCount) == [4])
        #expect(try fixture.reopen().taskLines("Home") == expected)
    }

    @Test(arguments: Backend.allCases)
    func aGroupHasOneOpenTaskOfATitleButADoneOneMayBeAddedAgain(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        let work = try logic.addGroup("Work")
        try logic.addTask("Buy milk", to: home)
        #expect(throws: TodoError(.duplicateTask, "\"Home\" already has an open task named \"Buy milk\".")) {
            try logic.addTask("buy MILK", to: home)
        }
        try logic.addTask("Buy milk", to: work)
        try logic.complete(taskTitled: "Buy milk", in: home)
        try logic.addTask("Buy milk", to: home)
        #expect(try logic.taskLines("Home") == ["[ ] Buy milk", "[x] Buy milk"])
        // With an open and a done task of the title, done marks the open one.
        try logic.complete(taskTitled: "buy milk", in: home)
        #expect(try fixture.reopen().taskLines("Home") == ["[x] Buy milk", "[x] Buy milk"])
    }

    @Test(arguments: Backend.allCases)
    func completingRefusesUnknownAndDoneTasks(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home Office")
        try logic.addTask("Buy milk", to: home)
        let done = try logic.complete(taskTitled: " buy milk ", in: home)
        #expect(done.title == "Buy milk")
        #expect(throws: TodoError(.alreadyCompleted, "\"Buy milk\" in \"Home Office\" is done already.")) {
            try logic.complete(taskTitled: "Buy milk", in: home)
        }
        #expect(throws: TodoError(.unknownTask, "no task named \"Buy eggs\" in \"Home Office\". See its tasks with: todo tasks \"Home Office\"")) {
            try logic.complete(taskTitled: "Buy eggs", in: home)
        }
        #expect(try fixture.reopen().summaries() == [GroupSummary(title: "Home Office", open: 0, completed: 1)])
    }

    @Test(arguments: Backend.allCases)
    func togglingDeletingAndClearingTasks(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        let milk = try logic.addTask("Buy milk", to: home)
        let tap = try logic.addTask("Fix the tap", to: home)
        let plants = try logic.addTask("Water the plants", to: home)
        let bread = try logic.addTask("Buy bread", to: home)
        try logic.toggleTask(milk)
        try logic.toggleTask(tap)
        try logic.toggleTask(bread)
        try logic.toggleTask(milk)
        #expect(try logic.taskLines("Home") == ["[ ] Buy milk", "[ ] Water the plants", "[x] Fix the tap", "[x] Buy bread"])

        try logic.deleteTask(plants)
        #expect(try logic.clearCompleted(in: home) == 2)
        #expect(try logic.taskLines("Home") == ["[ ] Buy milk"])
        // Nothing done: nothing to clear.
        #expect(try logic.clearCompleted(in: home) == 0)
        #expect(try logic.summaries() == [GroupSummary(title: "Home", open: 1, completed: 0)])
        #expect(try fixture.reopen().taskLines("Home") == ["[ ] Buy milk"])
        #expect(try fixture.reopen().groups().map(\.wrappedValue.taskCount) == [1])
    }

    @Test(arguments: Backend.allCases)
    func deletingAGroupDeletesItsTasks(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        let work = try logic.addGroup("Work")
        let milk = try logic.addTask("Buy milk", to: home)
        try logic.addTask("Fix the tap", to: home)
        try logic.addTask("Send the report", to: work)
        #expect(try logic.deleteGroup(home) == 2)
        #expect(try logic.deleteGroup(try logic.addGroup("Empty")) == 0)
        #expect(try logic.summaries() == [GroupSummary(title: "Work", open: 1, completed: 0)])
        // The deleted group and its tasks are unknown now.
        #expect(throws: TodoError.unknownGroup(titled: "Home")) { try logic.group(titled: "Home") }
        #expect(errorCode { try logic.addTask("Buy bread", to: home) } == .unknownGroup)
        #expect(errorCode { try logic.tasks(in: home) } == .unknownGroup)
        #expect(errorCode { try logic.toggleTask(milk) } == .unknownTask)
        #expect(try fixture.reopen().summaries() == [GroupSummary(title: "Work", open: 1, completed: 0)])
    }

    @Test(arguments: Backend.allCases)
    func identifiersThatNameNothingAreRefused(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let home = try logic.addGroup("Home")
        let milk = try logic.addTask("Buy milk", to: home)
        let nope = WrappedID.string("nope")
        let unknownGroup = TodoError(.unknownGroup, "no group has the identifier \"nope\".")
        let unknownTask = TodoError(.unknownTask, "no task has the identifier \"nope\".")
        #expect(throws: unknownGroup) { try logic.tasks(in: nope) }
        #expect(throws: unknownGroup) { try logic.summary(of: nope) }
        #expect(throws: unknownGroup) { try logic.addTask("Buy bread", to: nope) }
        #expect(throws: unknownGroup) { try logic.renameGroup(nope, to: "Work") }
        #expect(throws: unknownGroup) { try logic.deleteGroup(nope) }
        #expect(throws: unknownGroup) { try logic.clearCompleted(in: nope) }
        #expect(throws: unknownTask) { try logic.toggleTask(nope) }
        #expect(throws: unknownTask) { try logic.deleteTask(.string("nope")) }
        #expect(throws: TodoError(.unknownTask, "no task has the identifier 7.")) { try logic.toggleTask(.integer(7)) }
        // A task's identifier does not name a group, nor a group's a task.
        #expect(errorCode { try logic.addTask("Buy bread", to: milk) } == .unknownGroup)
        #expect(errorCode { try logic.toggleTask(home) } == .unknownTask)
        #expect(try fixture.reopen().taskLines("Home") == ["[ ] Buy milk"])
    }

    @Test(arguments: Backend.allCases)
    func summariesCountOpenAndDoneTasksInTitleOrder(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let work = try logic.addGroup("Work")
        let home = try logic.addGroup("home")
        try logic.addGroup("Garden")
        for title in ["Send the report", "Book a room", "Call Ann"] { try logic.addTask(title, to: work) }
        try logic.addTask("Buy milk", to: home)
        try logic.complete(taskTitled: "Book a room", in: work)
        try logic.complete(taskTitled: "Buy milk", in: home)
        let expected = [
            GroupSummary(title: "Garden", open: 0, completed: 0),
            GroupSummary(title: "home", open: 0, completed: 1),
            GroupSummary(title: "Work", open: 2, completed: 1),
        ]
        #expect(try logic.summaries() == expected)
        #expect(try logic.summary(of: work) == expected[2])
        #expect(expected[2].total == 3)
        #expect(try fixture.reopen().summaries() == expected)
    }

    /// One scripted session on every backend, compared whole: the demo's, with its refusals.
    @Test func theSameSessionGivesTheSameResultsEverywhere() throws {
        var results: [[String]] = []
        for backend in Backend.allCases {
            let fixture = try backend.makeFixture()
            defer { fixture.remove() }
            var lines = try Session.run(on: fixture.logic)
            let reopened = try fixture.reopen()
            lines += Report.groups(try reopened.summaries())
            for title in try reopened.groupTitles() { lines += try reopened.taskLines(title) }
            results.append(lines)
        }
        #expect(results[0].count == 14 + 2 + 4)
        #expect(results[0].filter { $0.hasPrefix("Refused: ") }.count == 3)
        #expect(results[1] == results[0])
        #expect(results[2] == results[0])
    }
}

/// The code of the ``TodoError`` `body` throws, `nil` when it throws none: for errors whose message
/// names an identifier that differs between backends.
func errorCode<Result>(_ body: () throws -> Result) -> TodoErrorCode? {
    do {
        _ = try body()
        return nil
    } catch {
        return (error as? TodoError)?.code
    }
}
