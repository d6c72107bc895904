import Dispatch
import PKCore
import PKObservers
import PKTesting
import Testing

/// A ``NetworkActivityController`` made with `init()`, without an indicator: it only counts, with procedures run on
/// a ProcedureQueue and reported by a NetworkObserver.
@Suite struct CountingNetworkActivityTests {

    /// `count` held procedures reporting to `controller`, added to `queue`, each waited for until it executes.
    private func startHeld(_ count: Int, on queue: ProcedureQueue, reportingTo controller: NetworkActivityController)
        -> [HeldProcedure]
    {
        let observer = NetworkObserver(controller: controller)
        let procedures = (0..<count).map { index -> HeldProcedure in
            let procedure = HeldProcedure(name: "Request \(index)")
            procedure.addObserver(observer)
            return procedure
        }
        queue.add(procedures: procedures)
        for procedure in procedures { #expect(procedure.waitUntilStarted()) }
        return procedures
    }

    @Test func threeProceduresRunningAtOnceAreCountedInFlightAndAsThePeak() {
        let controller = NetworkActivityController()
        let queue = ProcedureQueue()
        let procedures = startHeld(3, on: queue, reportingTo: controller)
        #expect(controller.inFlightCount == 3)
        #expect(controller.peakInFlightCount == 3)
        for procedure in procedures { procedure.release() }
        #expect(waitForAll(procedures))
        #expect(controller.inFlightCount == 0)
        #expect(controller.peakInFlightCount == 3)
    }

    @Test func aQueueOfWidthTwoNeverHasMoreThanTwoInFlight() {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 2
        let activity = NetworkActivityController()
        let procedures = (0..<20).map { TestProcedure(name: "Fetch \($0)") }
        for fetch in procedures { fetch.addObserver(NetworkObserver(controller: activity)) }
        queue.add(procedures: procedures)
        #expect(waitForAll(procedures))
        #expect(activity.inFlightCount == 0)
        #expect((1...2).contains(activity.peakInFlightCount))
    }

    @Test func workStartingAgainAfterTheCountReachedZeroIsCountedAgain() {
        // Without an indicator the hide takes effect at once: the next start must count (and "show") as the first.
        let controller = NetworkActivityController()
        let queue = ProcedureQueue()
        let first = startHeld(1, on: queue, reportingTo: controller)
        for procedure in first { procedure.release() }
        #expect(waitForAll(first))
        #expect(controller.inFlightCount == 0)
        let second = startHeld(2, on: queue, reportingTo: controller)
        #expect(controller.inFlightCount == 2)
        #expect(controller.peakInFlightCount == 2)
        for procedure in second { procedure.release() }
        #expect(waitForAll(second))
        #expect(controller.inFlightCount == 0)
    }

    @Test func aProcedureCancelledBeforeItStartsIsNotCounted() {
        let controller = NetworkActivityController()
        let queue = ProcedureQueue()
        let running = startHeld(1, on: queue, reportingTo: controller)
        let cancelled = TestProcedure(name: "Cancelled")
        cancelled.addObserver(NetworkObserver(controller: controller))
        cancelled.cancel()
        queue.add(procedure: cancelled)
        #expect(waitForAll(cancelled))
        #expect(controller.inFlightCount == 1)
        for procedure in running { procedure.release() }
        #expect(waitForAll(running))
        #expect(controller.inFlightCount == 0)
        #expect(controller.peakInFlightCount == 1)
    }

    @Test func startsAndStopsFromManyThreadsBalanceOut() {
        let controller = NetworkActivityController()
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in
            controller.start()
            controller.stop()
        }
        #expect(controller.inFlightCount == 0)
        #expect(controller.peakInFlightCount >= 1)
    }

    @Test func anUnbalancedStopIsStillRefusedWithAWarning() {
        let controller = NetworkActivityController()
        let writer = TestableLogWriter()
        GlobalLogSettings.with(enabled: true, severity: .warning, writer: writer) {
            controller.stop()
        }
        #expect(controller.inFlightCount == 0)
        #expect(writer.messages.contains { $0.contains("without a matching start") })
    }

    @Test func aCountingControllerHasNoGracePeriod() {
        #expect(NetworkActivityController().timerInterval == 0)
    }

    @Test func neitherTheObserverNorTheCountingControllerKeepsAFinishedProcedure() {
        let leaks = LeakCheck()
        let controller = NetworkActivityController()
        do {
            let procedure = TestProcedure()
            procedure.addObserver(NetworkObserver(controller: controller))
            leaks.track(procedure)
            ProcedureQueue().add(procedure: procedure)
            #expect(waitForAll(procedure))
        }
        #expect(leaks.waitUntilReleased().isEmpty)
        #expect(controller.peakInFlightCount == 1)
    }
}
