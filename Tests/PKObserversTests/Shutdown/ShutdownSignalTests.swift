import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// Real signals sent to this test process, handled by private coordinators. SIGUSR1 and SIGUSR2 stand in for
/// SIGTERM and SIGINT, whose handling would outlive the test and change how the test runner can be stopped.
/// Serialized: every coordinator listening to a signal receives it.
@Suite(.serialized)
struct ShutdownSignalTests {

    @Test func aHandledSignalRequestsShutdownAndEachLaterOneMovesItOnByOnePhase() async {
        let (coordinator, _) = makeCoordinator()
        let registered = await coordinator.handleSignals([SIGUSR1])
        #expect(registered)
        #expect(coordinator.handledSignals == [SIGUSR1])
        let upload = StubbornProcedure(name: "upload")
        upload.addObserver(BackgroundObserver(coordinator: coordinator))
        let job = StubbornProcedure(name: "job")
        job.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
        ProcedureQueue().add(procedures: upload, job)
        await executing(upload)
        await executing(job)

        // Each signal is sent once the previous one was seen: the kernel merges a signal into one still pending.
        kill(getpid(), SIGUSR1)
        await eventually("the first signal requests shutdown") { coordinator.phase == .shuttingDown }
        kill(getpid(), SIGUSR1)
        await eventually("the second signal ends the grace period") { coordinator.phase == .cancellingStragglers }
        // The coordinator cancels once it has moved on, and a cancel reaches the procedure's errors in its own
        // event context: both after the phase is seen.
        await eventually("the job is cancelled for the expired grace period") {
            shutdownContext(of: job) == .shutdownGracePeriodExpired
        }
        kill(getpid(), SIGUSR1)
        let report = await report(of: coordinator)
        #expect(report?.reason == .signal(SIGUSR1))
        #expect(report?.signalsReceived == 3)
        #expect(report?.stillRunning == ["upload", "job"])
        upload.release()
        job.release()
        await finished(upload)
        await finished(job)
    }

    @Test func aSlowCancelHookDoesNotHoldUpTheOperatorsNextSignal() async {
        // The first signal cancels a procedure whose cancel hook blocks until the coordinator has moved on. The
        // operator's second signal must be taken meanwhile: signals are not queued behind user code.
        let (coordinator, _) = makeCoordinator()
        await coordinator.handleSignals([SIGUSR1])
        let hookSawTheNextPhase = PKMutex<Bool?>(nil)
        let slow = StubbornProcedure(name: "slow to cancel")
        slow.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        slow.addDidCancelBlockObserver { _, _ in
            let deadline = Date().addingTimeInterval(hangTimeout)
            while coordinator.phase != .cancellingStragglers && Date() < deadline { usleep(1_000) }
            hookSawTheNextPhase.withLock { $0 = coordinator.phase == .cancellingStragglers }
        }
        ProcedureQueue().add(procedure: slow)
        await executing(slow)
        kill(getpid(), SIGUSR1)
        await eventually("the first signal requests shutdown") { coordinator.phase != .running }
        await eventually("the cancel hook is running") { slow.isCancelled }
        kill(getpid(), SIGUSR1)
        await eventually("the hook returned") { hookSawTheNextPhase.withLock { $0 != nil } }
        #expect(hookSawTheNextPhase.withLock { $0 } == true, "the second signal waited for the cancel hook")
        kill(getpid(), SIGUSR1)
        let report = await report(of: coordinator)
        #expect(report?.signalsReceived == 3)
        slow.release()
        await finished(slow)
    }

    @Test func handlingSeveralSignalsListensToEachOnce() async {
        let (coordinator, _) = makeCoordinator()
        await coordinator.handleSignals([SIGUSR2, SIGUSR1, SIGUSR2])
        await coordinator.handleSignals([SIGUSR1])
        #expect(coordinator.handledSignals == [SIGUSR1, SIGUSR2].sorted())
        kill(getpid(), SIGUSR2)
        let report = await report(of: coordinator)
        #expect(report == ShutdownReport(reason: .signal(SIGUSR2), signalsReceived: 1))
    }

    @Test func aSignalReachesEveryCoordinatorHandlingIt() async {
        let (first, _) = makeCoordinator()
        let (second, _) = makeCoordinator()
        await first.handleSignals([SIGUSR1])
        await second.handleSignals([SIGUSR1])
        kill(getpid(), SIGUSR1)
        #expect(await report(of: first)?.reason == .signal(SIGUSR1))
        #expect(await report(of: second)?.reason == .signal(SIGUSR1))
    }
}
