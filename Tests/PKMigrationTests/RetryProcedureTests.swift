import Foundation
import PKTesting
import XCTest

final class RetryProcedureTests: RetryTestCase {

    private var clock: ManualClock!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
    }

    override func tearDown() {
        clock = nil
        super.tearDown()
    }

    /// Attempts whose condition fails, with `ProcedureKitError.conditionFailed()`, for the first `failures`
    /// attempts; later attempts succeed. Decided by attempt number: `RetryTestCase`'s iterators decide when an
    /// attempt is made, which is before the previous failure has been counted, so they succeed one attempt late.
    private func makeAttempts(failingFirst failures: Int) -> AnyIterator<TestProcedure> {
        var made = 0
        return AnyIterator {
            made += 1
            let attempt = TestProcedure(name: "Attempt \(made)")
            if made <= failures {
                attempt.add(condition: TestCondition { .failure(ProcedureKitError.conditionFailed()) })
            }
            return attempt
        }
    }

    /// ``makeAttempts(failingFirst:)`` as payloads, each waiting 0.1 ms (on the clock) before it runs.
    private func makePayloads(failingFirst failures: Int) -> AnyIterator<RepeatProcedurePayload<TestProcedure>> {
        let attempts = makeAttempts(failingFirst: failures)
        return AnyIterator { attempts.next().map { RepeatProcedurePayload(operation: $0, delay: .by(0.000_1)) } }
    }

    /// Runs `retry`, letting `waits` waits pass on the clock, and waits for it to finish.
    private func runRetry(throughWaits waits: Int) {
        addCompletionBlockTo(procedure: retry)
        run(operation: retry)
        advance(clock, throughWaits: waits)
        waitForPendingExpectations()
    }

    func test__with_payload_iterator() {
        retry = Retry(clock: clock, iterator: makePayloads(failingFirst: 2)) { $1 }
        runRetry(throughWaits: 2)
        PKAssertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 3)
    }

    func test__with_max_count() {
        retry = Retry(max: 2, clock: clock, iterator: createPayloadIterator(succeedsAfterFailureCount: 4)) { $1 }
        runRetry(throughWaits: 1)
        XCTAssertEqual(retry.count, 2)
        PKAssertProcedureFinishedWithError(retry, ProcedureKitError.conditionFailed())
        XCTAssertEqual(retry.errors.count, 1)
    }

    func test__with_wait_strategy_and_operation_iterator() {
        retry = Retry(
            wait: .incrementing(initial: 0, increment: 0.001), clock: clock,
            iterator: makeAttempts(failingFirst: 2)
        ) { $1 }
        runRetry(throughWaits: 2)
        PKAssertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 3)
    }

    func test__with_block_fails_after_max() {
        retry = Retry(upto: 3, clock: clock) { TestProcedure(error: ProcedureKitError.unknown) }
        runRetry(throughWaits: 2)
        XCTAssertEqual(retry.count, 3)
        PKAssertProcedureFinishedWithError(retry, ProcedureKitError.unknown)
    }

    func test__with_input_procedure_payload() {
        let greeting = ResultProcedure { "ProcedureKit" }
        retry = Retry(clock: clock, iterator: makePayloads(failingFirst: 1)) { $1 }
        retry.injectResult(from: greeting)
        let attempts = Protector<[TestProcedure]>([])
        retry.addDidAddOperationBlockObserver { _, operation in
            if let attempt = operation as? TestProcedure { attempts.append(attempt) }
        }
        addCompletionBlockTo(procedure: greeting)
        run(operation: greeting)
        runRetry(throughWaits: 1)
        PKAssertProcedureOutput(retry, "Hello ProcedureKit")
        XCTAssertEqual(attempts.access.count, 2)
        XCTAssertEqual(attempts.access.compactMap(\.output.success), ["Hello ProcedureKit"])
        XCTAssertEqual(attempts.access.map(\.input.value), ["ProcedureKit", "ProcedureKit"])
    }

    func test__retry_handler_returning_nil_stops_retrying() {
        let failures = Protector<[Int]>([])
        retry = Retry(clock: clock, iterator: createOperationIterator(succeedsAfterFailureCount: 5)) { info, _ in
            failures.append(info.count)
            return nil
        }
        wait(for: retry)
        XCTAssertEqual(retry.count, 1)
        XCTAssertEqual(failures.access, [1])
        PKAssertProcedureFinishedWithError(retry, ProcedureKitError.conditionFailed())
    }

    func test__retry_deinits_after_finished() {
        let leaks = LeakCheck()
        // A queue of its own: the test case's recording delegate keeps every procedure it saw.
        let privateQueue = ProcedureQueue()
        do {
            let retry = Retry(iterator: makeAttempts(failingFirst: 1)) { $1 }
            leaks.track(retry)
            privateQueue.add(procedure: retry)
            XCTAssertTrue(ProcedureWaiter.wait(for: retry, timeout: 3))
            PKAssertProcedureFinished(retry)
            XCTAssertEqual(retry.count, 2)
        }
        PKAssertReleased(leaks)
    }
}

/// ProcedureKit's retry tests built on `RetryTestCase`'s iterators (which count failures in the attempts'
/// WillFinish observers: the retry takes its next attempt only after those have run, as in ProcedureKit).
final class RetryTestCaseIteratorTests: RetryTestCase {

    func test__with_payload_iterator() {
        retry = Retry(iterator: createPayloadIterator(succeedsAfterFailureCount: 2)) { $1 }
        wait(for: retry)
        PKAssertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 3)
    }

    func test__with_operation_iterator() {
        retry = Retry(max: nil, wait: .immediate, iterator: createOperationIterator(succeedsAfterFailureCount: 1))
        wait(for: retry)
        PKAssertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 2)
    }

    func test__with_delay_and_operation_iterator() {
        let clock = ManualClock()
        retry = Retry(
            delay: Delay.Iterator.fibonacci(withPeriod: 0.001), clock: clock,
            iterator: createOperationIterator(succeedsAfterFailureCount: 2)
        ) { $1 }
        addCompletionBlockTo(procedure: retry)
        run(operation: retry)
        advance(clock, throughWaits: 2)
        waitForPendingExpectations()
        PKAssertProcedureFinished(retry)
        XCTAssertEqual(retry.count, 3)
    }
}
