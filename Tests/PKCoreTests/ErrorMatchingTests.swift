import Foundation
import PKTesting
import Testing

@testable import PKCore

/// Errors a person can read and a program can match: root causes, predicates, descriptions, a retry's attempts.
struct ErrorMatchingTests {

    /// A value error that is neither `Hashable` nor a class, as users' errors often are.
    struct NegativeValue: Error, CustomStringConvertible {
        let value: Int
        var description: String { "negative value \(value)" }
    }

    /// A class error: the same object is one cause.
    final class ConnectionLost: Error, Sendable {}

    /// The issue's example: one root cause, reported three times through two levels of wrapping.
    static func threeWrappings(of cause: any Error) -> ProcedureKitError {
        ProcedureKitError(
            context: .multipleErrors,
            errors: [
                cause,
                ProcedureKitError.dependency(finishedWithErrors: [cause]),
                ProcedureKitError.dependency(cancelledWithErrors: [
                    ProcedureKitError.dependency(finishedWithErrors: [cause])
                ]),
            ])
    }

    @Test func oneRootCauseReportedThreeTimesIsOneCause() {
        let error = Self.threeWrappings(of: NegativeValue(value: -1))
        #expect(error.rootCauses.count == 1)
        #expect((error.rootCauses.first as? NegativeValue)?.value == -1)
    }

    @Test func theDescriptionLeadsWithTheRootCauses() {
        let error = Self.threeWrappings(of: NegativeValue(value: -1))
        #expect(
            error.description
                == "negative value -1 (Several errors, through: A dependency finished with errors; A dependency was cancelled)"
        )
        #expect(
            error.debugDescription
                == "Several errors (negative value -1, A dependency finished with errors (negative value -1), "
                + "A dependency was cancelled (A dependency finished with errors (negative value -1)))")
    }

    @Test func oneLevelDescriptionsAreUnchanged() {
        let error = ProcedureKitError.conditionFailed(with: NegativeValue(value: 2))
        #expect(error.description == "A condition failed (negative value 2)")
        #expect(error.rootCauses.count == 1)
        #expect(ProcedureKitError.timedOut(with: .by(1)).rootCauses.first is ProcedureKitError)
    }

    @Test func distinctCausesAreKeptInOrderOfFirstAppearance() {
        let first = TestError()
        let second = TestError()
        let lost = ConnectionLost()
        let errors: [any Error] = [
            ProcedureKitError.dependency(finishedWithErrors: [second, first]), first, lost,
            ProcedureKitError(context: .multipleErrors, errors: [lost, ConnectionLost()]),
            NegativeValue(value: 1), NegativeValue(value: 1), NegativeValue(value: 2),
        ]
        let causes = errors.rootCauses
        #expect(causes.count == 6)
        #expect(causes[0] as? TestError == second)
        #expect(causes[1] as? TestError == first)
        let third = causes[2] as? ConnectionLost
        let fourth = causes[3] as? ConnectionLost
        let sameAsLost = third.map { $0 === lost } ?? false
        let fourthIsAnother = fourth.map { $0 !== lost } ?? false
        #expect(sameAsLost)
        #expect(fourthIsAnother)
        #expect((causes[4] as? NegativeValue)?.value == 1)
        #expect((causes[5] as? NegativeValue)?.value == 2)
    }

    @Test func aFailedConditionsErrorContributesItsErrors() {
        let cause = TestError()
        let error = ProcedureKitError.FailedConditions(errors: [cause, ProcedureKitError.FalseCondition()])
        #expect(error.rootCauses.count == 2)
        #expect(error.isConditionFailure)
    }

    // MARK: - Predicates

    @Test func timeoutsAreFoundThroughWrapping() {
        let timeout = ProcedureKitError.timedOut(with: .by(0.5))
        #expect(timeout.isTimeout)
        #expect(ProcedureKitError.dependency(cancelledWithErrors: [timeout]).isTimeout)
        #expect(URLError(.timedOut).isTimeout)
        #expect(!TestError().isTimeout)
        #expect(!URLError(.badURL).isTimeout)
        #expect(([TestError(), timeout] as [any Error]).isTimeout)
    }

    @Test func cancellationsAreToldFromFailures() {
        #expect(CancellationError().isCancellation)
        #expect(ProcedureKitError.taskCancelled().isCancellation)
        #expect(ProcedureKitError.parent(cancelledWithErrors: []).isCancellation)
        #expect(ProcedureKitError.shutdownRequested().isCancellation)
        #expect(URLError(.cancelled).isCancellation)
        #expect(!TestError().isCancellation)
        #expect(!ProcedureKitError.timedOut(with: .by(1)).isCancellation)
        #expect(
            ProcedureKitError(
                context: .multipleErrors, errors: [CancellationError(), ProcedureKitError.taskCancelled()]
            ).isCancellation)
        #expect(
            !ProcedureKitError(context: .multipleErrors, errors: [CancellationError(), TestError()]).isCancellation)
    }

    @Test func aProcedureCancelledByAFailedInjectionReportsADependencyFailure() async {
        let queue = ProcedureQueue()
        let cause = NegativeValue(value: -1)
        let source = ResultProcedure<Int> { throw cause }
        let sink = TransformProcedure<Int, Int> { $0 }
        sink.injectResult(from: source)
        queue.add(procedure: source)
        do {
            _ = try await queue.run(sink) as Int
            Issue.record("the sink ran")
        } catch {
            #expect(error.isDependencyFailure)
            #expect(!error.isTimeout)
            #expect((error.rootCauses.first as? NegativeValue)?.value == -1)
        }
        #expect(sink.errors.isDependencyFailure)
        #expect(sink.errors.rootCauses.count == 1)
    }

    @Test func aProcedureCancelledForATimeoutIsMatchedWithoutUnpackingContexts() async {
        let queue = ProcedureQueue()
        let slow = AsyncResultProcedure<Int> {
            try await Task.sleep(for: .seconds(3600))
            return 0
        }
        let dependent = TransformProcedure<Int, Int> { $0 }
        dependent.injectResult(from: slow)
        queue.add(procedure: slow)
        // What a TimeoutObserver does when its delay expires.
        slow.cancel(with: ProcedureKitError.timedOut(with: .by(0.01)))
        await #expect(throws: (any Error).self) {
            do {
                _ = try await queue.run(dependent) as Int
            } catch  where error.isTimeout {
                #expect(error.isDependencyFailure)
                throw error
            }
        }
        #expect(slow.errors.isTimeout)
        #expect(!slow.errors.isDependencyFailure)
    }

    @Test func aFailingConditionIsAConditionFailure() async {
        let queue = ProcedureQueue()
        let procedure = BlockProcedure {}
        procedure.add(condition: TestCondition { .failure(TestError()) })
        await #expect(throws: (any Error).self) { try await queue.run(procedure) }
        #expect(procedure.errors.isConditionFailure || procedure.errors.rootCauses.first is TestError)
    }

    // MARK: - Retry

    @Test func aRetryThatGaveUpKeepsEveryAttemptsErrorsAndFinishesWithTheLast() async {
        let queue = ProcedureQueue()
        let errors = [TestError(), TestError(), TestError()]
        let attempt = PKMutex(0)
        let retry = RetryProcedure(max: 3) {
            let index = attempt.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            return BlockProcedure { throw errors[index] }
        }
        await #expect(throws: errors[2]) { try await queue.run(retry) }
        #expect(retry.count == 3)
        #expect(retry.attemptErrors.count == 3)
        #expect(retry.attemptErrors.map { $0.first as? TestError } == errors)
        PKExpectProcedureFinishedWithError(retry, errors[2])
    }

    @Test func aRetryThatSucceededKeepsTheFailedAttemptsErrors() async throws {
        let queue = ProcedureQueue()
        let error = TestError()
        let attempt = PKMutex(0)
        let retry = RetryProcedure(max: 5) {
            let index = attempt.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            return BlockProcedure { if index < 2 { throw error } }
        }
        try await queue.run(retry)
        #expect(retry.count == 3)
        #expect(retry.attemptErrors.count == 2)
        #expect(retry.errors.isEmpty)
    }
}
