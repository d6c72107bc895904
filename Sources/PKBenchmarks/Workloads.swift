import Dispatch
import Foundation
import PKConditions
import PKCore
import PKObservers

/// Sizes for one benchmark run.
struct Sizes {
    let independent: Int
    let chainShort: Int
    let chainLong: Int
    let foundationChains: [Int]
    let fanIn: Int
    let pendingForMemory: Int
    let awaited: Int
    let groupChildren: Int
    let exclusive: Int
    let fanOut: Int

    static let full = Sizes(
        independent: 100_000, chainShort: 10_000, chainLong: 100_000, foundationChains: [2_000, 8_000],
        fanIn: 100_000, pendingForMemory: 1_000_000, awaited: 100_000, groupChildren: 10_000, exclusive: 10_000,
        fanOut: 40_000)
    static let quick = Sizes(
        independent: 10_000, chainShort: 2_000, chainLong: 20_000, foundationChains: [1_000, 2_000],
        fanIn: 10_000, pendingForMemory: 100_000, awaited: 10_000, groupChildren: 2_000, exclusive: 2_000,
        fanOut: 4_000)
}

// MARK: - Contenders

func procedureQueueIndependent(_ count: Int, width: Int = -1, observers: Int = 0) {
    let queue = ProcedureQueue(maxConcurrentOperationCount: width)
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        for index in 0..<observers {
            if index % 2 == 0 {
                procedure.addWillExecuteBlockObserver { _, _ in }
            } else {
                procedure.addDidFinishBlockObserver { _, _ in }
            }
        }
        queue.add(procedure: procedure)
    }
    queue.waitUntilAllOperationsAreFinished()
}

/// W12: W1 with a TimeoutObserver (its own value, on the system clock) on every procedure: each run schedules and
/// cancels one timer.
func procedureQueueWithTimeouts(_ count: Int) {
    let queue = ProcedureQueue()
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        procedure.addObserver(TimeoutObserver(by: 60))
        queue.add(procedure: procedure)
    }
    queue.waitUntilAllOperationsAreFinished()
}

func operationQueueIndependent(_ count: Int, width: Int = -1) {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = width
    for _ in 0..<count { queue.addOperation(BlockOperation {}) }
    queue.waitUntilAllOperationsAreFinished()
}

func taskGroupIndependent(_ count: Int, window: Int? = nil) {
    blockingAsync {
        await withDiscardingTaskGroup { group in
            guard let window else {
                for _ in 0..<count { group.addTask {} }
                return
            }
            // A sliding window: at most `window` child tasks at once.
            await withTaskGroup(of: Void.self) { limited in
                var started = 0
                while started < min(window, count) {
                    limited.addTask {}
                    started += 1
                }
                while await limited.next() != nil {
                    if started < count {
                        limited.addTask {}
                        started += 1
                    }
                }
            }
        }
    }
}

func dispatchIndependent(_ count: Int) {
    let group = DispatchGroup()
    let queue = DispatchQueue.global()
    for _ in 0..<count { queue.async(group: group) {} }
    group.wait()
}

/// A chain built on a suspended queue, then released: every link waits on the previous one.
func procedureQueueChain(_ count: Int) {
    let queue = ProcedureQueue()
    queue.isSuspended = true
    var previous: Procedure?
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        if let previous { procedure.addDependency(previous) }
        queue.add(procedure: procedure)
        previous = procedure
    }
    previous = nil
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
}

/// The same chain on Foundation's queue.
func operationQueueChain(_ count: Int) {
    let queue = OperationQueue()
    queue.isSuspended = true
    var previous: Operation?
    for _ in 0..<count {
        let operation = BlockOperation {}
        if let previous { operation.addDependency(previous) }
        queue.addOperation(operation)
        previous = operation
    }
    previous = nil
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
}

func procedureQueueFanIn(_ count: Int) {
    let queue = ProcedureQueue()
    let sink = BlockProcedure {}
    var sources: [Procedure] = []
    sources.reserveCapacity(count)
    for _ in 0..<count {
        let source = BlockProcedure {}
        sink.addDependency(source)
        sources.append(source)
    }
    queue.add(procedure: sink)
    queue.add(procedures: sources)
    queue.waitUntilAllOperationsAreFinished()
}

func operationQueueFanIn(_ count: Int) {
    let queue = OperationQueue()
    let sink = BlockOperation {}
    var sources: [Operation] = []
    sources.reserveCapacity(count)
    for _ in 0..<count {
        let source = BlockOperation {}
        sink.addDependency(source)
        sources.append(source)
    }
    queue.addOperation(sink)
    queue.addOperations(sources, waitUntilFinished: false)
    queue.waitUntilAllOperationsAreFinished()
}

/// `window` tasks, each awaiting `step` in turn for its share of `count` steps: at most `window` in flight.
func awaitedByWorkers(_ count: Int, window: Int, _ step: @escaping @Sendable () async -> Void) {
    blockingAsync {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<window {
                let share = count / window + (worker < count % window ? 1 : 0)
                group.addTask {
                    for _ in 0..<share { await step() }
                }
            }
        }
    }
}

/// `window` tasks, each awaiting `run` for its share of `count` procedures in turn.
func procedureQueueAwaitedByWorkers(_ count: Int, window: Int) {
    let queue = ProcedureQueue()
    awaitedByWorkers(count, window: window) { try? await queue.run(BlockProcedure {}) }
}

/// W10 on a queue whose loops all run on the global queue (`underlyingQueue`), outside the loop budget: what the
/// budget's reserve lane (a thread beyond the pool's) costs awaited work.
func procedureQueueAwaitedOnGlobal(_ count: Int, window: Int) {
    let queue = ProcedureQueue()
    queue.underlyingQueue = DispatchQueue.global()
    awaitedByWorkers(count, window: window) { try? await queue.run(BlockProcedure {}) }
}

/// The floor under W10: the same `window` tasks, each awaiting, `count` times in all, a trivial block run on a
/// global dispatch queue (what awaiting any work done off the task costs, with no procedure and no queue).
func awaitedDispatchHops(_ count: Int, window: Int) {
    let target = DispatchQueue.global()
    awaitedByWorkers(count, window: window) {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            target.async { continuation.resume() }
        }
    }
}

/// One child task per procedure, in a sliding window of `window` tasks: the task group's own per-task cost is
/// part of this figure.
func procedureQueueAwaited(_ count: Int, window: Int) {
    let queue = ProcedureQueue()
    blockingAsync {
        await withTaskGroup(of: Void.self) { group in
            var started = 0
            func startOne() {
                group.addTask { try? await queue.run(BlockProcedure {}) }
                started += 1
            }
            while started < min(window, count) { startOne() }
            while await group.next() != nil {
                if started < count { startOne() }
            }
        }
    }
}

/// Bytes of heap per pending `BlockProcedure` on a suspended queue.
func bytesPerPendingProcedure(_ count: Int, timeout: Bool = false) -> Double {
    let queue = ProcedureQueue()
    queue.isSuspended = true
    let before = heapBytesInUse() ?? 0
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        if timeout { procedure.addObserver(TimeoutObserver(by: 60)) }
        queue.add(procedure: procedure)
    }
    let after = heapBytesInUse() ?? 0
    queue.cancelAllOperations()
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
    return Double(after - before) / Double(count)
}

/// Bytes of heap per bare `Operation` held in an array, for contrast.
func bytesPerBareOperation(_ count: Int) -> Double {
    let before = heapBytesInUse() ?? 0
    var operations: [Operation] = []
    operations.reserveCapacity(count)
    for _ in 0..<count { operations.append(Operation()) }
    let after = heapBytesInUse() ?? 0
    withExtendedLifetime(operations) {}
    return Double(after - before) / Double(count)
}

func groupProcedure(children count: Int) {
    let queue = ProcedureQueue()
    let group = GroupProcedure(operations: (0..<count).map { _ in BlockProcedure {} })
    queue.add(procedure: group)
    queue.waitUntilAllOperationsAreFinished()
}

func procedureQueueWithConditions(_ count: Int) {
    let queue = ProcedureQueue()
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        procedure.add(condition: BlockCondition { true })
        queue.add(procedure: procedure)
    }
    queue.waitUntilAllOperationsAreFinished()
}

/// Procedures sharing one mutually exclusive category, added to one queue.
func procedureQueueExclusive(_ count: Int) {
    let queue = ProcedureQueue()
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        procedure.add(condition: MutuallyExclusive<BlockProcedure>(category: "benchmark"))
        queue.add(procedure: procedure)
    }
    queue.waitUntilAllOperationsAreFinished()
}

// MARK: - Tracing (W13)

/// W1 with a queue-level `TraceRecorder` attached: every procedure gets a `TraceObserver` and a record. With
/// `writingTrace`, the trace is then written as JSON in memory (about three events per procedure).
func procedureQueueIndependentTraced(_ count: Int, writingTrace: Bool = false) {
    let recorder = TraceRecorder()
    let queue = ProcedureQueue()
    queue.addObserver(recorder)
    for _ in 0..<count { queue.add(procedure: BlockProcedure {}) }
    queue.waitUntilAllOperationsAreFinished()
    if writingTrace { _ = recorder.traceData() }
    withExtendedLifetime(recorder) {}
}

/// W1 with a `TraceObserver` attached to each procedure by hand: recording without a queue observer.
func procedureQueueIndependentObservedByTrace(_ count: Int) {
    let recorder = TraceRecorder()
    let queue = ProcedureQueue()
    for _ in 0..<count {
        let procedure = BlockProcedure {}
        procedure.addObserver(TraceObserver(recorder: recorder))
        queue.add(procedure: procedure)
    }
    queue.waitUntilAllOperationsAreFinished()
}

/// A queue observer that does nothing: what PKCore's queue notifications cost by themselves.
final class IdleQueueObserver: ProcedureQueueObserver {}

/// W1 with a queue observer that does nothing attached: the floor under the queue-level recorder.
func procedureQueueIndependentWithIdleObserver(_ count: Int) {
    let observer = IdleQueueObserver()
    let queue = ProcedureQueue()
    queue.addObserver(observer)
    for _ in 0..<count { queue.add(procedure: BlockProcedure {}) }
    queue.waitUntilAllOperationsAreFinished()
    withExtendedLifetime(observer) {}
}

// MARK: - Blocking executes (W11)

/// A procedure whose `execute()` blocks its thread until three blocks it sent to the global queue have run (each
/// tries to finish it): sync-over-async, as code ported from Darwin does it.
final class BlockingProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func execute() {
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            DispatchQueue.global().async {
                self.finish()
                group.leave()
            }
        }
        group.wait()
    }
}

/// `count` blocking procedures on a queue of `width`, waited for from the calling thread (a wait parked on a
/// global queue would itself take a pool thread). Gives up after 60 s (reported as such by the caller's time).
func procedureQueueBlocking(_ count: Int, width: Int = -1) {
    let queue = ProcedureQueue(maxConcurrentOperationCount: width)
    let procedures = (0..<count).map { _ in BlockingProcedure() }
    let done = DispatchGroup()
    for procedure in procedures {
        done.enter()
        procedure.addDidFinishBlockObserver { _, _ in done.leave() }
    }
    queue.add(procedures: procedures)
    _ = done.wait(timeout: .now() + 60)
}
