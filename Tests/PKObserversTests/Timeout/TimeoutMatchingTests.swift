import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// A timeout reads as a timeout wherever it surfaces: on the procedure a `TimeoutObserver` cancelled, on the error
/// `queue.run` throws, and on a dependent whose input it was.
@Suite(.timeLimit(.minutes(1)))
struct TimeoutMatchingTests {

    @Test func aTimedOutProcedureAndItsDependentBothMatchIsTimeout() async {
        let queue = ProcedureQueue()
        let clock = ManualClock()
        let slow = AsyncResultProcedure<Int> {
            try await Task.sleep(for: .seconds(3600))
            return 0
        }
        slow.addObserver(TimeoutObserver(by: .seconds(5), clock: clock))
        let dependent = TransformProcedure<Int, Int> { $0 + 1 }
        dependent.injectResult(from: slow)
        queue.add(procedure: slow)
        let running = Task { try await queue.run(dependent) as Int }
        #expect(await clock.waitForScheduledActions(count: 1))
        clock.advance(by: .seconds(5))
        do {
            _ = try await running.value
            Issue.record("the dependent ran")
        } catch  where error.isTimeout {
            #expect(error.isDependencyFailure)
            #expect(error.rootCauses.count == 1)
        } catch {
            Issue.record("not matched as a timeout: \(error)")
        }
        #expect(slow.errors.isTimeout)
        #expect(!slow.errors.isDependencyFailure)
        #expect(dependent.errors.isTimeout)
    }
}
