import Foundation
import PKTesting
import Synchronization
import Testing

/// Many thousands of procedures racing cancel against finish, cancelled at every stage, in long chains and wide
/// fan-ins. `PK_STRESS_LEVEL=heavy` multiplies every size by 10.
///
/// Every test runs inside `GlobalLogSettings.with(enabled: false)`: duplicate-finish and similar warnings are
/// expected by the thousand, and the block keeps the logging suite from running while logging is off.
/// Nothing here may hang: every wait has a generous timeout and fails instead.
@Suite(.serialized)
struct StressTests {

    /// The number of procedures in each scenario.
    static let size: Int = {
        let heavy = ProcessInfo.processInfo.environment["PK_STRESS_LEVEL"] == "heavy"
        return 10_000 * (heavy ? 10 : 1)
    }()

    /// The longest any scenario may take before it counts as hung.
    static let timeout: TimeInterval = ProcessInfo.processInfo.environment["PK_STRESS_LEVEL"] == "heavy" ? 600 : 120

    /// Waits for the queue to empty; records an issue instead of hanging.
    static func waitUntilEmpty(_ queue: ProcedureQueue, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            queue.waitUntilAllOperationsAreFinished()
            done.signal()
        }
        let finished = done.wait(timeout: .now() + timeout) == .success
        if !finished {
            Issue.record("hung: \(queue.operationCount) operations still on the queue", sourceLocation: sourceLocation)
        }
        return finished
    }

    /// Checks each procedure's recorder: exactly one didFinish, at most one didCancel, no overlapping callbacks.
    ///
    /// `checksCancel` says for which indexes the didCancel count is checked (see `cancellationAtEveryStage`).
    static func expectCleanEvents(
        _ pairs: [(Procedure, EventRecorder)], checksCancel: (Int) -> Bool = { _ in true },
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var badFinishCounts = 0
        var badCancelCounts = 0
        var overlaps: [String] = []
        var unfinished = 0
        var examples: [String] = []
        for (index, (procedure, recorder)) in pairs.enumerated() {
            if !procedure.isFinished { unfinished += 1 }
            if recorder.count(of: .didFinish) != 1 { badFinishCounts += 1 }
            let cancels = recorder.count(of: .didCancel)
            if checksCancel(index) && cancels != (procedure.isCancelled ? 1 : 0) {
                badCancelCounts += 1
                if examples.count < 3 {
                    let kinds = recorder.kinds(for: procedure)
                    examples.append("\(procedure.procedureName) cancelled \(procedure.isCancelled): \(kinds)")
                }
            }
            overlaps += recorder.overlaps
        }
        #expect(unfinished == 0, "procedures not finished", sourceLocation: sourceLocation)
        #expect(badFinishCounts == 0, "procedures without exactly one didFinish", sourceLocation: sourceLocation)
        #expect(
            badCancelCounts == 0, "procedures with a wrong number of didCancel, e.g. \(examples)",
            sourceLocation: sourceLocation)
        #expect(overlaps.isEmpty, "\(overlaps.prefix(5))", sourceLocation: sourceLocation)
    }

    @Test func cancelRacingFinishOnAnotherThread() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            queue.isSuspended = true  // the start gate: everything is released at once
            let pairs = (0..<Self.size).map { index -> (Procedure, EventRecorder) in
                let procedure = RacingProcedure(name: "Race\(index)")
                let recorder = EventRecorder(spin: index.isMultiple(of: 50) ? .microseconds(20) : .zero)
                procedure.addObserver(recorder)
                return (procedure, recorder)
            }
            queue.add(procedures: pairs.map { $0.0 })
            queue.isSuspended = false
            // Two threads cancel every other procedure while the queue runs them and they finish themselves.
            DispatchQueue.concurrentPerform(iterations: 2) { lane in
                for index in stride(from: lane, to: pairs.count, by: 4) { pairs[index].0.cancel() }
            }
            guard Self.waitUntilEmpty(queue) else { return }
            Self.expectCleanEvents(pairs)
            let cancelled = pairs.filter { $0.0.isCancelled }.count
            #expect(cancelled >= 1)
        }
    }

    enum Stage: Int, CaseIterable { case beforeEnqueue, waitingOnDependency, willExecute, execute }

    @Test func cancellationAtEveryStage() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            let releaseGate = DispatchSemaphore(value: 0)
            let gate = RacingProcedure(name: "Gate", finishAfter: releaseGate)
            var pairs: [(Procedure, EventRecorder)] = []
            var stages: [Stage] = []
            pairs.reserveCapacity(Self.size)
            for index in 0..<Self.size {
                let stage = Stage(rawValue: index % Stage.allCases.count)!
                let procedure: RacingProcedure
                let recorder = EventRecorder()
                switch stage {
                case .beforeEnqueue:
                    procedure = RacingProcedure(name: "S\(index)")
                    procedure.addObserver(recorder)
                    procedure.cancel()
                case .waitingOnDependency:
                    procedure = RacingProcedure(name: "S\(index)")
                    procedure.addDependency(gate)
                case .willExecute:
                    procedure = RacingProcedure(name: "S\(index)")
                    procedure.addWillExecuteBlockObserver { procedure, _ in procedure.cancel() }
                case .execute:
                    procedure = RacingProcedure(name: "S\(index)", cancelsItselfWhileExecuting: true)
                }
                if stage != .beforeEnqueue { procedure.addObserver(recorder) }
                pairs.append((procedure, recorder))
                stages.append(stage)
            }
            queue.add(procedure: gate)
            queue.add(procedures: pairs.map { $0.0 })
            for (index, stage) in stages.enumerated() where stage == .waitingOnDependency {
                pairs[index].0.cancel()
            }
            releaseGate.signal()
            guard Self.waitUntilEmpty(queue) else { return }
            Self.expectCleanEvents(pairs)
            var wrong: [String] = []
            for ((procedure, _), stage) in zip(pairs, stages) {
                let racing = procedure as! RacingProcedure
                let executed = racing.didExecute
                let ok = procedure.isCancelled && (stage == .execute ? executed : !executed)
                if !ok { wrong.append("\(procedure.procedureName) at \(stage): executed \(executed)") }
            }
            #expect(wrong.isEmpty, "\(wrong.count) wrong, e.g. \(wrong.prefix(5))")
            #expect(gate.isFinished)
        }
    }

    @Test
    func cancelDuringWillExecuteReachesDidCancelObservers() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            let pairs = (0..<Self.size / 10).map { index -> (Procedure, EventRecorder) in
                let procedure = RacingProcedure(name: "W\(index)")
                procedure.addWillExecuteBlockObserver { procedure, _ in procedure.cancel() }
                let recorder = EventRecorder()
                procedure.addObserver(recorder)
                return (procedure, recorder)
            }
            queue.add(procedures: pairs.map { $0.0 })
            guard Self.waitUntilEmpty(queue) else { return }
            Self.expectCleanEvents(pairs)
        }
    }

    @Test func dependencyChainCompletesInOrder() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            let next = Atomic<Int>(0)
            let outOfOrder = Atomic<Int>(0)
            var chain: [Procedure] = []
            chain.reserveCapacity(Self.size)
            for index in 0..<Self.size {
                let procedure = BlockProcedure {
                    if next.exchange(index + 1, ordering: .sequentiallyConsistent) != index {
                        outOfOrder.add(1, ordering: .relaxed)
                    }
                }
                if let previous = chain.last { procedure.addDependency(previous) }
                chain.append(procedure)
            }
            queue.add(procedures: chain)
            guard Self.waitUntilEmpty(queue) else { return }
            #expect(next.load(ordering: .sequentiallyConsistent) == Self.size)
            #expect(outOfOrder.load(ordering: .relaxed) == 0)
            #expect(chain.allSatisfy { $0.isFinished && !$0.failed })
        }
    }

    @Test func fanInCompletesAfterEveryDependency() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            let finished = Atomic<Int>(0)
            let seenAtEnd = Atomic<Int>(-1)
            let sources = (0..<Self.size).map { _ in
                BlockProcedure { finished.add(1, ordering: .sequentiallyConsistent) }
            }
            let sink = BlockProcedure {
                seenAtEnd.store(finished.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
            }
            sink.addDependencies(sources)
            queue.add(procedure: sink)
            queue.add(procedures: sources)
            guard Self.waitUntilEmpty(queue) else { return }
            #expect(sink.isFinished)
            #expect(seenAtEnd.load(ordering: .sequentiallyConsistent) == Self.size)
        }
    }

    @Test func observersAddedWhileRunningEachSeeExactlyOneFinish() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            let count = Self.size / 2
            let procedures = (0..<count).map { RacingProcedure(name: "Late\($0)") }
            let recorders = (0..<count).map { _ in EventRecorder() }
            queue.add(procedures: procedures)
            DispatchQueue.concurrentPerform(iterations: 2) { lane in
                for index in stride(from: lane, to: count, by: 2) {
                    procedures[index].addObserver(recorders[index])
                    if index.isMultiple(of: 3) { procedures[index].cancel() }
                }
            }
            guard Self.waitUntilEmpty(queue) else { return }
            // An observer may be attached after the procedure finished; it must still hear didFinish once.
            let done = DispatchGroup()
            for procedure in procedures {
                done.enter()
                procedure.addDidFinishBlockObserver { _, _ in done.leave() }
            }
            #expect(done.wait(timeout: .now() + Self.timeout) == .success)
            let bad = zip(procedures, recorders).filter { _, recorder in
                recorder.count(of: .didFinish) != 1 || recorder.count(of: .didAttach) != 1 || recorder.didOverlap
            }
            #expect(bad.isEmpty, "\(bad.count) procedures with a bad event history")
        }
    }

    /// Block observers are appended directly while a procedure's events are idle and go through its event queue
    /// otherwise; added from two threads while the procedures run (some cancelled), each DidFinish block fires
    /// exactly once, and each WillExecute block at most once (and, for a procedure not cancelled, only if it
    /// executed).
    @Test func blockObserversAddedWhileRunningEachFireExactlyOnce() {
        GlobalLogSettings.with(enabled: false) {
            let queue = ProcedureQueue()
            let count = Self.size / 2
            let procedures = (0..<count).map { RacingProcedure(name: "Block\($0)") }
            // PKMutex rather than Mutex: under PK_TSAN it is a pthread mutex the sanitizer can see.
            let finishes = PKMutex([Int](repeating: 0, count: count))
            let willExecutes = PKMutex([Int](repeating: 0, count: count))
            let added = DispatchGroup()
            queue.add(procedures: procedures)
            DispatchQueue.concurrentPerform(iterations: 2) { lane in
                for index in stride(from: lane, to: count, by: 2) {
                    added.enter()
                    procedures[index].addWillExecuteBlockObserver { _, _ in
                        willExecutes.withLock { $0[index] += 1 }
                    }
                    procedures[index].addDidFinishBlockObserver { _, _ in
                        finishes.withLock { $0[index] += 1 }
                        added.leave()
                    }
                    if index.isMultiple(of: 5) { procedures[index].cancel() }
                }
            }
            guard Self.waitUntilEmpty(queue) else { return }
            #expect(added.wait(timeout: .now() + Self.timeout) == .success)
            let finished = finishes.withLock { $0 }
            let willExecuted = willExecutes.withLock { $0 }
            let badFinish = finished.indices.filter { finished[$0] != 1 }
            #expect(badFinish.isEmpty, "\(badFinish.count) DidFinish blocks did not fire exactly once")
            let badWillExecute = willExecuted.indices.filter { index in
                // A cancel arriving during the WillExecute phase skips execute(), so only uncancelled ones count.
                let skipped = !procedures[index].didExecute && !procedures[index].isCancelled
                return willExecuted[index] > 1 || (willExecuted[index] == 1 && skipped)
            }
            #expect(badWillExecute.isEmpty, "\(badWillExecute.count) WillExecute blocks fired wrongly")
        }
    }
}

/// A procedure that finishes from another thread (so the finish races anything else going on), optionally
/// cancelling itself first, or waiting for a semaphore.
final class RacingProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `executed` is an Atomic; the other stored properties are immutable and Sendable.

    private let executed = Atomic<Bool>(false)
    private let cancelsItselfWhileExecuting: Bool
    private let finishAfter: DispatchSemaphore?

    init(name: String, cancelsItselfWhileExecuting: Bool = false, finishAfter: DispatchSemaphore? = nil) {
        self.cancelsItselfWhileExecuting = cancelsItselfWhileExecuting
        self.finishAfter = finishAfter
        super.init()
        self.name = name
    }

    var didExecute: Bool { executed.load(ordering: .sequentiallyConsistent) }

    override func execute() {
        executed.store(true, ordering: .sequentiallyConsistent)
        let cancels = cancelsItselfWhileExecuting
        let gate = finishAfter
        DispatchQueue.global().async { [self] in
            gate?.wait()
            if cancels { cancel() }
            finish()
        }
    }
}
