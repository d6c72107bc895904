import Dispatch
import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// `run(_:)` goes through the queue as `add` does: it waits for a slot, never overtakes a procedure already waiting
/// for one, waits while the queue is suspended and for the procedure's dependencies, runs on the queue's
/// `underlyingQueue`, and keeps to `maxConcurrentOperationCount`. (Starting a procedure on the awaiting task's
/// thread, to save two thread hops, would have to keep every one of these.)
struct RunSchedulingTests {

    /// Names appended by procedures as they execute, in order.
    private final class Order: Sendable {
        private let names = PKMutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// How many blocks run at once, and the most that ever did.
    private final class Concurrency: Sendable {
        private let running = Atomic<Int>(0)
        private let highest = Atomic<Int>(0)
        func enterAndLeave() {
            let now = running.add(1, ordering: .relaxed).newValue
            highest.max(now, ordering: .relaxed)
            running.subtract(1, ordering: .relaxed)
        }
        var most: Int { highest.load(ordering: .relaxed) }
    }

    /// A procedure, added with `add`, that blocks its worker loop's thread until `release` is signalled.
    private static func blocker(_ order: Order, started: DispatchSemaphore, release: DispatchSemaphore)
        -> BlockProcedure
    {
        BlockProcedure {
            order.append("blocker")
            started.signal()
            release.wait()
        }
    }

    /// Waits, off the cooperative pool, for `semaphore`; records an issue after the hang timeout.
    private static func wait(for semaphore: DispatchSemaphore, _ what: String) async {
        let signalled = await Task.detached { semaphore.wait(timeout: .now() + hangTimeout) == .success }.value
        if !signalled { Issue.record("timed out waiting for \(what)") }
    }

    /// Waits until `procedure` is on its queue (``Procedure/isEnqueued``), which `run(_:)` makes it before it
    /// would start; records an issue after the hang timeout.
    private static func waitUntilEnqueued(_ procedure: Procedure) async {
        let deadline = ContinuousClock.now + .seconds(hangTimeout)
        while !procedure.isEnqueued {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting for \(procedure.procedureName) to be enqueued")
                return
            }
            await Task.yield()
        }
    }

    @Test func theQueueIsCurrentInAProcedureItRuns() async throws {
        let queue = ProcedureQueue()
        let current = PKMutex<ProcedureQueue?>(nil)
        try await queue.run(BlockProcedure { current.withLock { $0 = ProcedureQueue.current } })
        #expect(current.withLock { $0 } === queue)
    }

    @Test func runWaitsForASlotOnAQueueThatHasNone() async throws {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        let order = Order()
        let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        queue.add(procedure: Self.blocker(order, started: started, release: release))
        await Self.wait(for: started, "the blocker to start")
        let awaited = BlockProcedure { order.append("awaited") }
        let running = Task { try await queue.run(awaited) }
        await Self.waitUntilEnqueued(awaited)
        #expect(order.all == ["blocker"])
        release.signal()
        try await running.value
        #expect(order.all == ["blocker", "awaited"])
    }

    @Test func runDoesNotOvertakeAProcedureAlreadyWaitingForASlot() async throws {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        let order = Order()
        let (started, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        queue.add(procedure: Self.blocker(order, started: started, release: release))
        await Self.wait(for: started, "the blocker to start")
        let waiting = BlockProcedure { order.append("waiting") }
        queue.add(procedure: waiting)
        let awaited = BlockProcedure { order.append("awaited") }
        let running = Task { try await queue.run(awaited) }
        await Self.waitUntilEnqueued(awaited)
        release.signal()
        try await running.value
        #expect(await waitForFinish([waiting], timeout: hangTimeout))
        #expect(order.all == ["blocker", "waiting", "awaited"])
    }

    @Test func runOnASuspendedQueueStartsNothingUntilItIsResumed() async throws {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let order = Order()
        let awaited = BlockProcedure { order.append("awaited") }
        let running = Task { try await queue.run(awaited) }
        await Self.waitUntilEnqueued(awaited)
        #expect(order.all.isEmpty)
        queue.isSuspended = false
        try await running.value
        #expect(order.all == ["awaited"])
    }

    @Test func aQueueWithAnUnderlyingQueueStillExecutesThere() async throws {
        let key = DispatchSpecificKey<String>()
        let underlying = DispatchQueue(label: "RunSchedulingTests.underlying")
        underlying.setSpecific(key: key, value: "underlying")
        let queue = ProcedureQueue()
        queue.underlyingQueue = underlying
        let seen = PKMutex<String?>(nil)
        try await queue.run(BlockProcedure { seen.withLock { $0 = DispatchQueue.getSpecific(key: key) } })
        #expect(seen.withLock { $0 } == "underlying")
    }

    @Test func aProcedureWithADependencyStartsOnlyAfterIt() async throws {
        let queue = ProcedureQueue()
        let order = Order()
        let dependency = BlockProcedure { order.append("dependency") }
        let dependent = BlockProcedure { order.append("dependent") }
        dependent.addDependency(dependency)
        let running = Task { try await queue.run(dependent) }
        await Self.waitUntilEnqueued(dependent)
        #expect(order.all.isEmpty)
        queue.add(procedure: dependency)
        try await running.value
        #expect(order.all == ["dependency", "dependent"])
    }

    @Test func aProcedureThatFinishesLaterFromAnotherThreadIsAwaited() async throws {
        let queue = ProcedureQueue()
        let procedure = BlockProcedure { procedure in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) { procedure.finish() }
        }
        try await queue.run(procedure)
        #expect(procedure.isFinished)
    }

    @Test func runningManyAtOnceOnAQueueOfWidthTwoNeverRunsMoreThanTwo() async throws {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 2)
        let concurrency = Concurrency()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { try await queue.run(BlockProcedure { concurrency.enterAndLeave() }) }
            }
            try await group.waitForAll()
        }
        #expect(concurrency.most <= 2)
    }
}
