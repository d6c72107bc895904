import Foundation
import PKConditions
import PKTesting
import Testing

/// A condition that calls its completion more than once: the first result decides, later ones are ignored
/// with a warning.
///
/// Serialized: every test holds the process-wide log settings (``GlobalLogSettings``), so running them side by
/// side would only park threads on its gate.
@Suite(.serialized)
struct ConditionCompletionTests {

    /// A log writer that keeps every entry it is given.
    private final class CapturedLog: LogWriter, @unchecked Sendable {
        // @unchecked Sendable: `storage` is guarded by its PKMutex.

        private let storage = PKMutex<[LogEntry]>([])

        func write(_ text: String, entry: LogEntry) { storage.withLock { $0.append(entry) } }

        var entries: [LogEntry] { storage.withLock { $0 } }
    }

    /// A condition whose `evaluate` calls its completion with `first`, then with `second`, then signals
    /// ``returned``.
    private final class TwiceCompletingCondition: Condition, @unchecked Sendable {
        // @unchecked Sendable: the results and the semaphore are immutable and Sendable; the superclass guards its
        // own state.

        /// Signalled once `evaluate` has called its completion both times.
        let returned = DispatchSemaphore(value: 0)
        private let first: ConditionResult
        private let second: ConditionResult

        init(first: ConditionResult, second: ConditionResult) {
            self.first = first
            self.second = second
            super.init()
            // Unique, so the warning is told apart from other tests' log output (logging is process-wide).
            name = "TwiceCompleting-\(UUID().uuidString)"
        }

        override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
            completion(first)
            completion(second)
            returned.signal()
        }
    }

    /// Runs `body` with the process-wide log captured (warnings and above), so the expected warning neither
    /// reaches standard error nor is missed.
    private func withCapturedLog(_ body: (CapturedLog) -> Void) {
        let log = CapturedLog()
        GlobalLogSettings.with(enabled: true, severity: .warning, writer: log) { body(log) }
    }

    /// Runs a procedure guarded by `condition` and waits until it finished and `evaluate` returned.
    @discardableResult
    private func run(_ condition: TwiceCompletingCondition) -> TestProcedure {
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        waitFor(condition.returned, "evaluate to return")
        return procedure
    }

    @Test func satisfiedFirstRunsTheProcedureDespiteALaterFailure() {
        withCapturedLog { _ in
            let error = TestError()
            let condition = TwiceCompletingCondition(first: .success(true), second: .failure(error))
            let procedure = run(condition)
            #expect(procedure.executeCount == 1)
            PKExpectProcedureFinished(procedure)
            #expect(condition.output.outcome == "satisfied")
        }
    }

    @Test func failedFirstCancelsTheProcedureDespiteALaterSuccess() {
        withCapturedLog { _ in
            let error = TestError()
            let condition = TwiceCompletingCondition(first: .failure(error), second: .success(true))
            let procedure = run(condition)
            #expect(!procedure.didExecute)
            #expect(procedure.isCancelled)
            #expect(condition.output.outcome == "failed")
            if case .ready(.failure(let recorded)) = condition.output {
                #expect(recorded as? TestError == error)
            }
        }
    }

    @Test func secondCompletionIsIgnoredWithAWarning() {
        withCapturedLog { log in
            let condition = TwiceCompletingCondition(first: .success(true), second: .failure(TestError()))
            run(condition)
            let warnings = log.entries.filter { $0.message.contains(condition.conditionName) }
            #expect(warnings.count == 1)
            #expect(warnings.allSatisfy { $0.severity == .warning })
            #expect(warnings.allSatisfy { $0.message.contains("more than once") }, "\(warnings.map(\.message))")
        }
    }
}
