import ExampleSupport
import ExampleTestSupport
import Foundation
import Testing

@Suite struct ConsoleTests {
    private struct Other: Error, CustomStringConvertible {
        var description: String { "something else broke" }
    }

    @Test func aCommandThatSucceedsExitsWith0() {
        let transcript = Transcript()
        let status = transcript.console.run { transcript.console.write("done") }
        #expect(status == 0)
        #expect(transcript.output == ["done"])
        #expect(transcript.errors.isEmpty)
    }

    @Test(arguments: [(TestCode.usage, Int32(64)), (.invalidInput, 64), (.missing, 1), (.store, 1)])
    func anExampleErrorExitsWithItsStatus(code: TestCode, status: Int32) {
        let transcript = Transcript()
        #expect(transcript.console.run { throw TestError(code, "it went wrong.") } == status)
        #expect(transcript.output.isEmpty)
        #expect(transcript.errors == ["error: it went wrong."])
    }

    @Test func anyOtherErrorExitsWith1() {
        let transcript = Transcript()
        #expect(transcript.console.run { throw Other() } == 1)
        #expect(transcript.errors == ["error: something else broke"])
    }

    @Test func writesADemoStepAfterABlankLine() {
        let transcript = Transcript()
        transcript.console.writeStep(3, "Do the thing")
        #expect(transcript.output == ["", "3. Do the thing"])
    }
}
