import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// TimeoutObserver timers firing on the real clock against procedures finishing on their own, thousands at once:
/// every procedure finishes exactly once, and a timeout error never lands on a procedure that finished cleanly.
@Suite(.serialized)
struct TimeoutStressTests {

    /// A procedure that finishes by itself at the end of `execute()`, at once or after spinning for a while (cut short
    /// by a cancel).
    final class SelfFinishingProcedure: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `spin` is immutable.
        private let spin: Duration?

        init(name: String, spin: Duration?) {
            self.spin = spin
            super.init()
            self.name = name
        }

        override func execute() {
            if let spin {
                let end = ContinuousClock.now + spin
                while ContinuousClock.now < end, !isCancelled {}
            }
            finish()
        }
    }

    @Test func timeoutsRacingFinishesLeaveEveryProcedureFinishedOnceAndCleanFinishesClean() async {
        // Awaited, not waited for, so the test holds no pool thread while thousands of procedures need them. The
        // spinning procedures keep both lanes busy; the clock's timers fire on a queue of their own regardless (in
        // CI a third of an hour went by when they were sent to the global queue). Nothing here logs.
        do {
            var generator = SystemRandomNumberGenerator()
            let queue = ProcedureQueue()
            queue.isSuspended = true
            let count = StressTests.size / 5
            let pairs = (0..<count).map { index -> (Procedure, EventRecorder) in
                // A third finish inline with a 10 s limit (clean finishes are certain), a tenth spin until a 1 ms
                // limit cancels them (timeouts are certain, however loaded the machine), and the rest spin up to
                // 2 ms against limits of 0.1 ms to 2 ms: the race, which either side may win.
                let inline = index.isMultiple(of: 3)
                let stubborn = !inline && index.isMultiple(of: 10)
                let spin: Duration? =
                    inline ? nil : stubborn ? .seconds(30) : .microseconds(Int.random(in: 0...2_000, using: &generator))
                let limit: Duration =
                    inline
                    ? .seconds(10)
                    : stubborn ? .milliseconds(1) : .microseconds(Int.random(in: 100...2_000, using: &generator))
                let procedure = SelfFinishingProcedure(name: "T\(index)", spin: spin).timeout(after: limit)
                let recorder = EventRecorder()
                procedure.addObserver(recorder)
                return (procedure, recorder)
            }
            queue.add(procedures: pairs.map { $0.0 })
            queue.isSuspended = false
            let finished = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await queue.allOperationsFinished()
                    return true
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(StressTests.timeout))
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            guard finished else {
                Issue.record("hung: \(queue.operationCount) operations still on the queue")
                return
            }
            StressTests.expectCleanEvents(pairs)
            var timedOut = 0
            var clean = 0
            var wrong: [String] = []
            for (procedure, _) in pairs {
                let timeouts = procedure.errors.filter {
                    if case .timedOut = ($0 as? ProcedureKitError)?.context { return true }
                    return false
                }
                switch (procedure.isCancelled, timeouts.count, procedure.errors.count) {
                case (false, 0, 0): clean += 1
                case (true, 1, 1): timedOut += 1
                default:
                    wrong.append("\(procedure.procedureName): cancelled \(procedure.isCancelled), \(procedure.errors)")
                }
            }
            #expect(wrong.isEmpty, "\(wrong.prefix(5))")
            #expect(clean > 0)
            #expect(timedOut > 0)
        }
    }
}
