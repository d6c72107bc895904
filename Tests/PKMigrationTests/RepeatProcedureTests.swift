import Foundation
import PKTesting
import XCTest

extension XCTestCase {
    /// Lets `count` waits scheduled on `clock` pass, each as soon as it has been scheduled.
    func advance(
        _ clock: ManualClock, throughWaits count: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        for index in 0..<count {
            guard clock.waitForScheduledActions(count: 1) else {
                return XCTFail("wait \(index + 1) of \(count) was never scheduled", file: file, line: line)
            }
            clock.advanceToNextAction()
        }
    }
}

final class RepeatProcedureTests: RepeatTestCase {

    private var clock: ManualClock!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
    }

    override func tearDown() {
        clock = nil
        super.tearDown()
    }

    /// Runs `repeatProcedure`, letting `waits` waits pass on the clock, and waits for it to finish.
    private func runRepeat(throughWaits waits: Int) {
        addCompletionBlockTo(procedure: repeatProcedure)
        run(operation: repeatProcedure)
        advance(clock, throughWaits: waits)
        waitForPendingExpectations()
    }

    func test__init_with_max_and_custom_iterator() {
        repeatProcedure = RepeatProcedure(max: 2, clock: clock, iterator: createIterator())
        runRepeat(throughWaits: 1)
        PKAssertProcedureFinished(repeatProcedure)
        XCTAssertEqual(repeatProcedure.count, 2)
    }

    func test__init_with_max_and_delay_iterator() {
        repeatProcedure = RepeatProcedure(
            max: 2, delay: Delay.Iterator.immediate, iterator: AnyIterator { TestProcedure() })
        wait(for: repeatProcedure)
        PKAssertProcedureFinished(repeatProcedure)
        XCTAssertEqual(repeatProcedure.count, 2)
    }

    func test__init_with_max_and_wait_strategy() {
        repeatProcedure = RepeatProcedure(
            max: 2, wait: .constant(0.001), clock: clock, iterator: AnyIterator { TestProcedure() })
        runRepeat(throughWaits: 1)
        PKAssertProcedureFinished(repeatProcedure)
        XCTAssertEqual(repeatProcedure.count, 2)
    }

    func test__init_with_max_and_body() {
        let counter = Counter()
        let repeatBlocks = RepeatProcedure(max: 2) { BlockProcedure { counter.increment() } }
        wait(for: repeatBlocks)
        PKAssertProcedureFinished(repeatBlocks)
        XCTAssertEqual(repeatBlocks.count, 2)
        XCTAssertEqual(counter.count, 2)
    }

    func test__init_with_no_max_and_delay_iterator() {
        repeatProcedure = RepeatProcedure(
            delay: Delay.Iterator.immediate, iterator: createIterator(succeedsAfterCount: 2))
        wait(for: repeatProcedure)
        PKAssertProcedureFinishedWithError(repeatProcedure, expectedError)
        XCTAssertEqual(repeatProcedure.errors.count, 1)
        XCTAssertEqual(repeatProcedure.count, 2)
    }

    func test__init_with_no_max_and_wait_strategy() {
        repeatProcedure = RepeatProcedure(
            wait: .constant(0.001), clock: clock, iterator: createIterator(succeedsAfterCount: 2))
        runRepeat(throughWaits: 1)
        PKAssertProcedureFinishedWithError(repeatProcedure, expectedError)
        XCTAssertEqual(repeatProcedure.count, 2)
    }

    func test__append_configure_block() {
        let calls = Protector<[String]>([])
        var index = 0
        repeatProcedure = RepeatProcedure(
            max: 2,
            iterator: AnyIterator {
                index += 1
                return TestProcedure(name: "Operation \(index)")
            })
        repeatProcedure.appendConfigureBlock { calls.append("first: \($0.procedureName)") }
        repeatProcedure.appendConfigureBlock { calls.append("second: \($0.procedureName)") }
        wait(for: repeatProcedure)
        PKAssertProcedureFinished(repeatProcedure)
        XCTAssertEqual(
            calls.access,
            ["first: Operation 1", "second: Operation 1", "first: Operation 2", "second: Operation 2"])
    }

    func test__replace_configure_block() {
        let calls = Protector<[String]>([])
        repeatProcedure = RepeatProcedure(max: 2, iterator: AnyIterator { TestProcedure() })
        repeatProcedure.appendConfigureBlock { _ in calls.append("appended") }
        repeatProcedure.replaceConfigureBlock { _ in calls.append("replacement") }
        wait(for: repeatProcedure)
        XCTAssertEqual(calls.access, ["replacement", "replacement"])
    }

    func test__payload_with_configure_block_replaces_configure() {
        let configured = Counter()
        let payloads = AnyIterator {
            RepeatProcedurePayload(operation: TestProcedure(), delay: nil) { _ in configured.increment() }
        }
        repeatProcedure = RepeatProcedure(max: 3, iterator: payloads)
        wait(for: repeatProcedure)
        PKAssertProcedureFinished(repeatProcedure)
        XCTAssertEqual(repeatProcedure.count, 3)
        // Differs from ProcedureKit: the first payload's configure block is applied too (ProcedureKit skipped it).
        XCTAssertEqual(configured.count, 3)
    }

    func test__repeat_forwards_injected_input_to_every_operation() {
        let greeting = ResultProcedure { "ProcedureKit" }
        repeatProcedure = RepeatProcedure(max: 2, iterator: AnyIterator { TestProcedure() })
        repeatProcedure.injectResult(from: greeting)
        let operations = Protector<[TestProcedure]>([])
        repeatProcedure.addDidAddOperationBlockObserver { _, operation in
            if let operation = operation as? TestProcedure { operations.append(operation) }
        }
        wait(for: greeting, repeatProcedure)
        PKAssertProcedureOutput(repeatProcedure, "Hello ProcedureKit")
        XCTAssertEqual(operations.access.count, 2)
        XCTAssertEqual(operations.access.map(\.output.success), ["Hello ProcedureKit", "Hello ProcedureKit"])
    }

    func test__cancelling_while_waiting_between_operations_finishes_the_repeat() {
        repeatProcedure = RepeatProcedure(wait: .constant(10), clock: clock, iterator: AnyIterator { TestProcedure() })
        addCompletionBlockTo(procedure: repeatProcedure)
        run(operation: repeatProcedure)
        XCTAssertTrue(clock.waitForScheduledActions(count: 1))
        repeatProcedure.cancel()
        waitForPendingExpectations()
        PKAssertProcedureCancelled(repeatProcedure)
        XCTAssertEqual(repeatProcedure.count, 2)
        XCTAssertEqual(clock.scheduledActionCount, 0)
    }
}

final class IteratorTests: XCTestCase {

    func test__finite__limits_are_not_exceeeded() {
        var iterator = FiniteIterator(AnyIterator(stride(from: 0, to: 10, by: 1).makeIterator()), limit: 2)
        XCTAssertEqual(iterator.next(), 0)
        XCTAssertEqual(iterator.next(), 1)
        XCTAssertNil(iterator.next())
    }
}

final class WaitStrategyTestCase: XCTestCase {

    private func values(of strategy: WaitStrategy, count: Int) -> [TimeInterval] {
        Array(strategy.prefix(count))
    }

    func test__constant() {
        XCTAssertEqual(values(of: .constant(1.0), count: 5), [1, 1, 1, 1, 1])
    }

    func test__incrementing() {
        XCTAssertEqual(values(of: .incrementing(initial: 0, increment: 3), count: 6), [0, 3, 6, 9, 12, 15])
    }

    func test__fibonacci() {
        XCTAssertEqual(
            values(of: .fibonacci(period: 1, maximum: 30), count: 10), [0, 1, 1, 2, 3, 5, 8, 13, 21, 30])
    }

    func test__exponential() {
        XCTAssertEqual(values(of: .exponential(power: 2, period: 1, maximum: 20), count: 6), [1, 2, 4, 8, 16, 20])
    }

    func test__random_wait_strategy() {
        let waits = values(of: .random(minimum: 1, maximum: 2), count: 1_000)
        XCTAssertTrue(waits.allSatisfy { (1...2).contains($0) })
    }
}

final class DelayIteratorTests: XCTestCase {

    private func delays(_ iterator: AnyIterator<Delay>, count: Int) -> [Delay] {
        Array(iterator.prefix(count))
    }

    func test__constant() {
        XCTAssertEqual(delays(Delay.Iterator.constant(1.0), count: 3), [.by(1), .by(1), .by(1)])
    }

    func test__incrementing() {
        XCTAssertEqual(
            delays(Delay.Iterator.incrementing(from: 0, by: 3), count: 6),
            [.by(0), .by(3), .by(6), .by(9), .by(12), .by(15)])
    }

    func test__fibonacci() {
        XCTAssertEqual(
            delays(Delay.Iterator.fibonacci(withPeriod: 1, andMaximum: 30), count: 10),
            [0, 1, 1, 2, 3, 5, 8, 13, 21, 30].map { Delay.by($0) })
    }

    func test__exponential() {
        XCTAssertEqual(
            delays(Delay.Iterator.exponential(power: 2, withPeriod: 1, andMaximum: 20), count: 6),
            [1, 2, 4, 8, 16, 20].map { Delay.by($0) })
    }

    func test__random_delay_iterator() {
        let draws = delays(Delay.Iterator.random(withMinimum: 1, andMaximum: 2), count: 1_000)
        XCTAssertTrue(draws.allSatisfy { .by(1) <= $0 && $0 <= .by(2) })
    }
}
