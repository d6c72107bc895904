import Foundation
import PKCore
import XCTest

/// ``ProcedureKitTestCase`` with helpers for repeat procedures: ProcedureKit's `RepeatTestCase`.
open class RepeatTestCase: ProcedureKitTestCase {

    /// The repeat under test, if the test makes one.
    public var repeatProcedure: RepeatProcedure<TestProcedure>!
    /// An error for failing attempts, fresh for each test.
    public var expectedError: TestError!

    /// Creates ``expectedError``.
    open override func setUp() {
        super.setUp()
        expectedError = TestError()
    }

    /// Cancels the repeat, then tears down as ``ProcedureKitTestCase`` does.
    open override func tearDown() {
        repeatProcedure?.cancel()
        repeatProcedure = nil
        expectedError = nil
        super.tearDown()
    }

    /// An endless iterator of payloads, each a new test procedure waited for with `delay`.
    public func createIterator(withDelay delay: Delay = .by(0.001)) -> AnyIterator<
        RepeatProcedurePayload<TestProcedure>
    > {
        AnyIterator { RepeatProcedurePayload(operation: TestProcedure(), delay: delay) }
    }

    /// An iterator of exactly `target` test procedures: all but the last fail with ``expectedError``.
    public func createIterator(succeedsAfterCount target: Int) -> AnyIterator<TestProcedure> {
        var count = 0
        let error = expectedError ?? TestError()
        return AnyIterator {
            guard count < target else { return nil }
            count += 1
            return TestProcedure(error: count < target ? error : nil)
        }
    }
}

/// ``ProcedureKitTestCase`` with helpers for retry procedures: ProcedureKit's `RetryTestCase`.
open class RetryTestCase: ProcedureKitTestCase {

    /// The attempt type.
    public typealias Test = TestProcedure
    /// The retry type.
    public typealias Retry = RetryProcedure<TestProcedure>
    /// The retry handler type.
    public typealias Handler = Retry.Handler

    /// Counts of the attempts made by the iterators below.
    public final class RetryTestCaseInfo: Sendable {
        private let counts = Protector((executions: 0, failures: 0))

        /// Creates counts of zero.
        public init() {}

        /// Attempts that reached their WillFinish phase.
        public var numberOfExecutions: Int { counts.read { $0.executions } }
        /// Attempts that failed (their condition failed).
        public var numberOfFailures: Int { counts.read { $0.failures } }

        fileprivate func attemptFinished(failed: Bool) {
            counts.write {
                $0.executions += 1
                if failed { $0.failures += 1 }
            }
        }
    }

    /// The retry under test, if the test makes one.
    public var retry: Retry!
    /// An error for failing attempts, fresh for each test.
    public var error: TestError!

    /// Creates ``error``.
    open override func setUp() {
        super.setUp()
        error = TestError()
    }

    /// Cancels the retry, then tears down as ``ProcedureKitTestCase`` does.
    open override func tearDown() {
        retry?.cancel()
        retry = nil
        error = nil
        super.tearDown()
    }

    /// An endless iterator of attempts whose condition fails (with `ProcedureKitError.conditionFailed()`) until
    /// `failureThreshold` attempts have failed; later attempts succeed. `info` counts them.
    public func createOperationIterator(
        succeedsAfterFailureCount failureThreshold: Int, info: RetryTestCaseInfo = RetryTestCaseInfo()
    ) -> AnyIterator<Test> {
        AnyIterator {
            let attempt = TestProcedure()
            let fails = info.numberOfFailures < failureThreshold
            attempt.add(
                condition: TestCondition { fails ? .failure(ProcedureKitError.conditionFailed()) : .success(true) })
            attempt.addWillFinishBlockObserver { _, errors, _ in info.attemptFinished(failed: !errors.isEmpty) }
            return attempt
        }
    }

    /// ``createOperationIterator(succeedsAfterFailureCount:info:)`` as payloads waiting 0.1 ms before each attempt.
    public func createPayloadIterator(
        succeedsAfterFailureCount failureThreshold: Int, info: RetryTestCaseInfo = RetryTestCaseInfo()
    ) -> AnyIterator<RepeatProcedurePayload<Test>> {
        let attempts = createOperationIterator(succeedsAfterFailureCount: failureThreshold, info: info)
        return AnyIterator { attempts.next().map { RepeatProcedurePayload(operation: $0, delay: .by(0.000_1)) } }
    }
}
