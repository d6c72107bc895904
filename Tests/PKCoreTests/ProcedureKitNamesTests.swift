import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// ProcedureKit's helper names that ported code uses: they exist and behave as in ProcedureKit.
struct OperationHelpersTests {

    @Test func operationNameIsTheNameOrUnnamedOperation() {
        let named = BlockOperation {}
        named.name = "Named"
        #expect(named.operationName == "Named")
        #expect(BlockOperation {}.operationName == "Unnamed Operation")
        #expect(TestProcedure(name: "P").operationName == "P")
    }

    @Test func thenMakesTheNextOperationDependOnThisOne() {
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        let chain = first.then(do: second)
        #expect(chain == [first, second])
        #expect(second.dependencies == [first])
        let third = TestProcedure(name: "Third")
        #expect(second.then { third } == [second, third])
        #expect(third.then { nil } == [third])
    }

    @Test func thenOnACollectionMakesEveryNewOperationDependOnEveryElement() {
        let sources = [TestProcedure(name: "A"), TestProcedure(name: "B")]
        let sinks = [TestProcedure(name: "C"), TestProcedure(name: "D")]
        let all = sources.then(do: sinks)
        #expect(all.map(\.procedureName) == ["A", "B", "C", "D"])
        #expect(
            sinks.allSatisfy {
                Set($0.dependencies.map(ObjectIdentifier.init)) == Set(sources.map(ObjectIdentifier.init))
            })
        let queue = ProcedureQueue()
        all.enqueue(on: queue)
        waitForAll(all)
        let order = all.compactMap(\.executedAt)
        #expect(order.count == 4)
        #expect(order[2] >= order[0] && order[3] >= order[1])
    }

    @Test func addCompletionBlockChainsAfterTheExistingOne() {
        let trail = Trail()
        let done = DispatchSemaphore(value: 0)
        let operation = BlockOperation {}
        operation.completionBlock = { trail.append("first") }
        operation.addCompletionBlock {
            trail.append("second")
            done.signal()
        }
        let queue = ProcedureQueue()
        queue.addOperation(operation)
        waitFor(done, "the completion blocks")
        #expect(trail.entries == ["first", "second"])
    }

    @Test func removeDependenciesRemovesThemBeforeEnqueue() {
        let procedure = TestProcedure()
        let a = TestProcedure(name: "A")
        let b = TestProcedure(name: "B")
        procedure.addDependencies([a, b])
        procedure.removeDependencies([a])
        #expect(procedure.dependencies == [b])
        procedure.removeAllDependencies()
        #expect(procedure.dependencies.isEmpty)
    }
}

struct ProcedureIdentityTests {

    @Test func identityIsStableAcrossRenamesAndDistinctBetweenProcedures() {
        let procedure = TestProcedure(name: "Before")
        let before = procedure.identity
        procedure.name = "After"
        #expect(procedure.identity == before)
        #expect(procedure.identity.name == "After")
        #expect(TestProcedure().identity != before)
        #expect(Set([before, procedure.identity]).count == 1)
        #expect(procedure.identity.description.hasPrefix("After #"))
    }
}

struct ProtectorTests {

    @Test func readWriteOverwriteAndAppendAreSerialized() {
        let numbers = Protector<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 1_000) { numbers.append($0) }
        #expect(numbers.read { $0.count } == 1_000)
        #expect(Set(numbers.access) == Set(0..<1_000))
        let removed = numbers.write { value -> Int in
            defer { value.removeAll() }
            return value.count
        }
        #expect(removed == 1_000)
        numbers.overwrite(with: [7])
        numbers.append(contentsOf: [8, 9])
        #expect(numbers.access == [7, 8, 9])
    }

    @Test func advanceCountsUnderTheLock() {
        let counter = Protector(0)
        DispatchQueue.concurrentPerform(iterations: 500) { _ in counter.advance(by: 2) }
        #expect(counter.access == 1_000)
    }
}

struct ProcedureResultNamesTests {

    @Test func resultAndPendingExposeValueSuccessAndError() {
        let error = TestError()
        let ok: ProcedureResult<Int> = .success(3)
        let failed: ProcedureResult<Int> = .failure(error)
        #expect(ok.value == 3 && ok.error == nil)
        #expect(failed.value == nil && failed.error as? TestError == error)
        let pending: Pending<ProcedureResult<Int>> = .pending
        #expect(pending.success == nil && pending.error == nil)
        #expect(Pending.ready(ok).success == 3)
        #expect(Pending.ready(failed).error as? TestError == error)
        #expect(pendingVoidResult.success != nil)
        #expect(pendingVoid.value != nil)
        #expect(Optional(5).pending == .ready(5))
        #expect(Optional<Int>.none.pending == .pending)
    }
}

struct IteratorNamesTests {

    @Test func delayIteratorsYieldTheStrategiesAsDelays() {
        #expect(
            Array(Delay.Iterator.exponential(power: 2, withPeriod: 1, andMaximum: 20).prefix(7)) == [
                .by(1), .by(2), .by(4), .by(8), .by(16), .by(20), .by(20),
            ])
        #expect(
            Array(Delay.Iterator.fibonacci(withPeriod: 1, andMaximum: 30).prefix(10)).map(\.interval) == [
                0, 1, 1, 2, 3, 5, 8, 13, 21, 30,
            ])
        #expect(Array(Delay.Iterator.incrementing(from: 0, by: 3).prefix(4)) == [.by(0), .by(3), .by(6), .by(9)])
        #expect(Array(Delay.Iterator.constant(2).prefix(2)) == [.by(2), .by(2)])
        #expect(Array(Delay.Iterator.immediate.prefix(2)) == [.by(0), .by(0)])
        let random = Array(IntervalIterator.random(withMinimum: 1, andMaximum: 2).prefix(100))
        #expect(random.allSatisfy { (1...2).contains($0) })
        #expect(Array(WaitStrategy.constant(4).iterator.prefix(2)) == [4, 4])
    }

    @Test func delaysOfOneKindAreOrdered() {
        #expect(Delay.by(1) < Delay.by(2))
        #expect(Delay.until(Date(timeIntervalSince1970: 1)) < Delay.until(Date(timeIntervalSince1970: 2)))
        #expect(!(Delay.by(1) < Delay.until(.distantFuture)) && !(Delay.until(.distantPast) < Delay.by(1)))
    }

    @Test func smallIteratorsBehaveAsInProcedureKit() {
        var counting = CountingIterator { $0 < 3 ? $0 * 10 : nil }
        #expect([counting.next(), counting.next(), counting.next(), counting.next()] == [0, 10, 20, nil])
        #expect(counting.count == 4)
        var finite = FiniteIterator(CountingIterator { $0 }, limit: 2)
        #expect([finite.next(), finite.next(), finite.next()] == [0, 1, nil])
        var mapped = MapIterator([1, 2].makeIterator()) { "\($0)" }
        #expect([mapped.next(), mapped.next(), mapped.next()] == ["1", "2", nil])
        var pairs = PairIterator(primary: [1, 2].makeIterator(), secondary: ["a"].makeIterator())
        let first = pairs.next()
        let second = pairs.next()
        #expect(first?.0 == 1 && first?.1 == "a")
        #expect(second?.0 == 2 && second?.1 == nil)
        #expect(pairs.next() == nil)
        var fibonacci = FibonacciIterator()
        #expect((0..<8).map { _ in fibonacci.next() } == [0, 1, 1, 2, 3, 5, 8, 13])
        var never = RandomFailIterator(CountingIterator { $0 }, probability: 0)
        #expect(never.next() == 0)
        var always = RandomFailIterator(CountingIterator { $0 }, probability: 1)
        #expect(always.next() == nil)
    }
}

struct DispatchQueueNamesTests {

    @Test func namedGlobalQueuesAndMainQueueChecks() {
        #expect(DispatchQueue.default.label == DispatchQueue.global(qos: .default).label)
        #expect(DispatchQueue.initiated.label == DispatchQueue.global(qos: .userInitiated).label)
        #expect(DispatchQueue.main.isMainDispatchQueue)
        #expect(!DispatchQueue.default.isMainDispatchQueue)
        let onMain = DispatchQueue.global().sync { DispatchQueue.isMainDispatchQueue }
        #expect(!onMain)
    }
}
