import Foundation
import PKConditions
import PKTesting
import Testing

/// Mutual exclusion through categories: one at a time per category, across queues, without deadlocks, and with
/// locks given back whatever stage a procedure is cancelled at.
struct MutualExclusionTests {

    @Test func sharedCategoryRunsOneAtATimeOnAWideQueue() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let hold: TimeInterval = 0.25
        let queue = ProcedureQueue(maxConcurrentOperationCount: 3)
        let workers = (0..<3).map {
            ExclusiveWorker(name: "Worker\($0)", category: category, tracker: tracker, hold: hold)
        }
        let clock = ContinuousClock()
        let start = clock.now
        queue.add(procedures: workers)
        waitForAll(workers)
        let elapsed = clock.now - start
        #expect(tracker.maxConcurrent == 1)
        #expect(tracker.entered == 3)
        #expect(elapsed >= .seconds(3 * hold) - .milliseconds(10))
    }

    @Test func sharedCategoryAddedFromSeveralThreadsRunsOneAtATime() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let queue = ProcedureQueue(maxConcurrentOperationCount: 3)
        let workers = (0..<6).map {
            ExclusiveWorker(name: "Worker\($0)", category: category, tracker: tracker, hold: 0.02)
        }
        DispatchQueue.concurrentPerform(iterations: workers.count) { queue.add(procedure: workers[$0]) }
        waitForAll(workers)
        #expect(tracker.maxConcurrent == 1)
        #expect(tracker.entered == workers.count)
    }

    @Test func oneThousandProceduresOverThreeQueuesNeverOverlap() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let queues = (0..<3).map { ProcedureQueue(name: "Q\($0)", maxConcurrentOperationCount: 4) }
        let workers = (0..<1000).map { ExclusiveWorker(name: "Worker\($0)", category: category, tracker: tracker) }
        for (index, worker) in workers.enumerated() {
            queues[index % queues.count].add(procedure: worker)
        }
        waitForAll(workers, timeout: 120)
        #expect(tracker.maxConcurrent == 1)
        #expect(tracker.entered == 1000)
        #expect(workers.allSatisfy { $0.isFinished && !$0.isCancelled })
    }

    @Test func differentCategoriesRunAtTheSameTime() {
        let bothStarted = DispatchGroup()
        bothStarted.enter()
        bothStarted.enter()
        let met = PKMutex(0)
        func rendezvous(_ name: String, _ category: String) -> ProbeProcedure {
            let procedure = ProbeProcedure(name: name) { procedure in
                bothStarted.leave()
                DispatchQueue.global().async {
                    if bothStarted.wait(timeout: .now() + hangTimeout) == .success { met.withLock { $0 += 1 } }
                    procedure.finish()
                }
            }
            procedure.add(condition: MutuallyExclusive<ProbeProcedure>(category: category))
            return procedure
        }
        let first = rendezvous("First", uniqueCategory("A"))
        let second = rendezvous("Second", uniqueCategory("B"))
        ProcedureQueue(maxConcurrentOperationCount: 2).add(procedures: first, second)
        waitForAll([first, second], timeout: hangTimeout * 2)
        #expect(met.withLock { $0 } == 2)
    }

    @Test(arguments: [false, true])
    func dependentExclusiveProceduresDoNotDeadlock(dependentFirst: Bool) {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let p1 = ExclusiveWorker(name: "P1", category: category, tracker: tracker, hold: 0.01)
        let p2 = ExclusiveWorker(name: "P2", category: category, tracker: tracker, hold: 0.01)
        p2.addDependency(p1)
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        if dependentFirst {
            queue.add(procedures: p2, p1)
        } else {
            queue.add(procedures: p1, p2)
        }
        waitForAll(p1, p2)
        PKExpectProcedureFinished(p1)
        PKExpectProcedureFinished(p2)
        #expect(tracker.maxConcurrent == 1)
    }

    @Test func twoCategoriesRequestedInOppositeOrdersDoNotDeadlock() {
        let (a, b) = (uniqueCategory("A"), uniqueCategory("B"))
        let tracker = ConcurrencyTracker()
        let queue = ProcedureQueue(maxConcurrentOperationCount: 4)
        var procedures: [Procedure] = []
        for index in 0..<100 {
            let procedure = ProbeProcedure(name: "P\(index)") { procedure in
                tracker.enter()
                tracker.leave()
                procedure.finish()
            }
            let first = MutuallyExclusive<ProbeProcedure>(category: index.isMultiple(of: 2) ? a : b)
            let second = MutuallyExclusive<ProbeProcedure>(category: index.isMultiple(of: 2) ? b : a)
            procedure.add(condition: first)
            procedure.add(condition: second)
            procedures.append(procedure)
        }
        queue.add(procedures: procedures)
        waitForAll(procedures)
        #expect(tracker.maxConcurrent == 1)
        #expect(tracker.entered == 100)
    }

    @Test func nestedCategoriesAreLocked() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let queue = ProcedureQueue(maxConcurrentOperationCount: 3)
        let procedures = (0..<3).map { index -> ProbeProcedure in
            let procedure = ProbeProcedure(name: "P\(index)") { procedure in
                tracker.enter()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                    tracker.leave()
                    procedure.finish()
                }
            }
            procedure.add(condition: TrueCondition() && !(!TrueCondition(mutuallyExclusiveCategory: category)))
            return procedure
        }
        queue.add(procedures: procedures)
        waitForAll(procedures)
        #expect(tracker.maxConcurrent == 1)
    }

    // MARK: - Cancellation releases the lock

    enum CancelStage: String, Sendable, CaseIterable {
        case beforeEnqueue, byAFailingCondition, whileWaitingOnADependency, whileWaitingForTheLock, duringExecute
    }

    @Test(arguments: CancelStage.allCases)
    func lockIsReleasedAfterCancellation(at stage: CancelStage) {
        let category = uniqueCategory(stage.rawValue)
        let queue = ProcedureQueue()
        let exclusive = { MutuallyExclusive<GateProcedure>(category: category) }
        switch stage {
        case .beforeEnqueue:
            let procedure = TestProcedure()
            procedure.add(condition: exclusive())
            procedure.cancel()
            queue.add(procedure: procedure)
            waitForAll(procedure)
            #expect(!procedure.didExecute)

        case .byAFailingCondition:
            let procedure = TestProcedure()
            procedure.add(condition: exclusive())
            procedure.add(condition: FalseCondition())
            queue.add(procedure: procedure)
            waitForAll(procedure)
            #expect(!procedure.didExecute)

        case .whileWaitingOnADependency:
            let dependency = GateProcedure(name: "Dependency")
            let procedure = TestProcedure()
            procedure.add(condition: exclusive())
            procedure.addDependency(dependency)
            queue.add(procedures: dependency, procedure)
            waitFor(dependency.started, "the dependency to start")
            procedure.cancel()
            waitForAll(procedure)
            #expect(!procedure.didExecute)
            #expect(!dependency.isFinished)
            defer { dependency.open() }
            runsAfterwards(category, on: queue)
            return

        case .whileWaitingForTheLock:
            let holder = GateProcedure(name: "Holder")
            holder.add(condition: exclusive())
            queue.add(procedure: holder)
            guard waitFor(holder.started, "the holder to start") else { return }
            let evaluated = RecordingCondition(name: "Evaluated")
            let waiter = TestProcedure(name: "Waiter")
            waiter.add(condition: exclusive())
            waiter.add(condition: evaluated)
            queue.add(procedure: waiter)
            waitFor(evaluated.evaluated, "the waiter's conditions to be evaluated")
            waiter.cancel()
            waitForAll(waiter)
            #expect(!waiter.didExecute)
            #expect(!holder.isFinished)
            holder.open()
            waitForAll(holder)

        case .duringExecute:
            let procedure = GateProcedure(name: "Running")
            procedure.add(condition: exclusive())
            queue.add(procedure: procedure)
            guard waitFor(procedure.started, "the procedure to execute") else { return }
            procedure.cancel()
            waitForAll(procedure)
            PKExpectProcedureCancelled(procedure)
        }
        runsAfterwards(category, on: queue)
    }

    /// Checks that two more procedures in `category` run, one after the other.
    private func runsAfterwards(
        _ category: String, on queue: ProcedureQueue, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let next = TestProcedure(name: "Next")
        next.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        let last = TestProcedure(name: "Last")
        last.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        ProcedureQueue().add(procedures: next, last)
        waitForAll([next, last], sourceLocation: sourceLocation)
        #expect(next.didExecute, sourceLocation: sourceLocation)
        #expect(last.didExecute, sourceLocation: sourceLocation)
    }

    @Test
    func suspendingAQueueReleasesALockGrantedToAProcedureThatHasNotStarted() {
        let category = uniqueCategory()
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        let blocker = GateProcedure(name: "Blocker")
        queue.add(procedure: blocker)
        guard waitFor(blocker.started, "the blocker to occupy the only slot") else { return }
        let granted = TestProcedure(name: "Granted")
        let evaluated = RecordingCondition(name: "Evaluated")
        granted.add(condition: evaluated)
        granted.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        queue.add(procedure: granted)
        waitFor(evaluated.evaluated, "the conditions to be evaluated")
        queue.isSuspended = true
        let other = TestProcedure(name: "OtherQueue")
        other.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        ProcedureQueue().add(procedure: other)
        waitForAll([other], timeout: 5)
        #expect(other.didExecute)
        #expect(!granted.didExecute)
        blocker.open()
        queue.isSuspended = false
        waitForAll(blocker, granted)
        #expect(granted.didExecute)
    }

    // MARK: - Producer and child in the same category

    /// The child either ran, or was cancelled because waiting for its producer's category would deadlock.
    private func expectRanOrRefused(
        _ child: TestProcedure, category: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard !child.didExecute else {
            PKExpectProcedureFinished(child, sourceLocation: sourceLocation)
            return
        }
        PKExpectProcedureCancelled(child, withErrors: true, sourceLocation: sourceLocation)
        #expect(
            child.kitError?.context == .mutualExclusionDeadlock(categories: [category]), sourceLocation: sourceLocation)
    }

    @Test func childProducedBeforeTheProducerFinishesDoesNotHang() {
        let category = uniqueCategory()
        let child = TestProcedure(name: "Child")
        child.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        let producer = TestProcedure(name: "Producer")
        producer.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        producer.addWillFinishBlockObserver { procedure, _, pendingFinish in
            try? procedure.produce(operation: child, before: pendingFinish)
        }
        ProcedureQueue().add(procedure: producer)
        waitForAll(producer, child)
        PKExpectProcedureFinished(producer)
        expectRanOrRefused(child, category: category)
    }

    @Test func producerWaitingForItsChildDoesNotHang() {
        let category = uniqueCategory()
        let child = TestProcedure(name: "Child")
        child.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        let producer = ProbeProcedure(name: "Producer") { procedure in
            child.addDidFinishBlockObserver { _, _ in procedure.finish() }
            do {
                try procedure.produce(operation: child)
            } catch {
                procedure.finish(with: error)
            }
        }
        producer.add(condition: MutuallyExclusive<GateProcedure>(category: category))
        ProcedureQueue().add(procedure: producer)
        waitForAll(producer, child)
        PKExpectProcedureFinished(producer)
        expectRanOrRefused(child, category: category)
    }
}
