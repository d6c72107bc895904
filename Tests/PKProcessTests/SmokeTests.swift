import Foundation
import PKCore
import PKProcess
import Testing

@Suite struct SmokeTests {
    @Test func echoCaptures() async throws {
        let queue = ProcedureQueue()
        let procedure = ProcessProcedure(command: "echo", arguments: ["hello"], standardOutput: .capture())
        let result = try await queue.run(procedure)
        #expect(result.standardOutputText == "hello")
    }
}
