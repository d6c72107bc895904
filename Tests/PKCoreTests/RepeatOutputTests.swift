import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

struct RepeatOutputTests {

    @Test func aRetryOutputsItsSuccessfulAttemptsOutputSoResultsCanBeInjectedFromIt() {
        let attempts = Atomic<Int>(0)
        let retry = RetryProcedure(max: 3) {
            ResultProcedure<Int> {
                let attempt = attempts.add(1, ordering: .relaxed).newValue
                if attempt < 3 { throw TestError() }
                return attempt * 10
            }
        }
        let double = TransformProcedure<Int, Int> { $0 * 2 }
        double.injectResult(from: retry)
        ProcedureQueue().add(procedures: retry, double)
        #expect(ProcedureWaiter.wait(for: [retry, double], timeout: 20))
        #expect(retry.count == 3)
        #expect(retry.output.value.flatMap { try? $0.get() } == 30)
        #expect(double.output.value.flatMap { try? $0.get() } == 60)
    }

    @Test func aRetryThatNeverSucceedsCancelsWhatIsInjectedFromIt() {
        let retry = RetryProcedure(max: 2) { ResultProcedure<Int> { throw TestError() } }
        let double = TransformProcedure<Int, Int> { $0 * 2 }
        double.injectResult(from: retry)
        ProcedureQueue().add(procedures: retry, double)
        #expect(ProcedureWaiter.wait(for: [retry, double], timeout: 20))
        #expect(retry.failed)
        #expect(double.isCancelled)
        #expect((double.error as? ProcedureKitError)?.context == .dependencyFinishedWithError)
    }
}
