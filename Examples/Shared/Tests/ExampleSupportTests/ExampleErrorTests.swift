import ExampleSupport
import Foundation
import Stowage
import Testing

@Suite struct ExampleErrorTests {
    @Test func describesItselfWithItsMessage() {
        let error = TestError(.missing, "no thing named \"x\".")
        #expect(error.description == "no thing named \"x\".")
        #expect("\(error)" == "no thing named \"x\".")
        #expect(error.exitStatus == 1)
        #expect(TestError(.invalidInput, "bad").exitStatus == 64)
    }

    @Test func wrapsStoreErrorsWithTheirMessageOnly() {
        let stowage = StowageError(.saveFailed, "the disk is full.", sql: "INSERT INTO thing")
        #expect(TestError.store("save to", stowage) == TestError(.store, "could not save to the store: the disk is full."))
        let url = URL(fileURLWithPath: "/tmp/things.store")
        #expect(TestError.store(openingAt: url, stowage) == TestError(.store, "could not open the store at /tmp/things.store: the disk is full."))
    }

    @Test func wrapsOtherErrorsWithTheirDescription() {
        struct Broken: Error, CustomStringConvertible { var description: String { "broken" } }
        #expect(TestError.store("read", Broken()) == TestError(.store, "could not read the store: broken"))
    }
}
