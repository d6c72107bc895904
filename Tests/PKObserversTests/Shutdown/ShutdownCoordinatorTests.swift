import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// ShutdownCoordinator with private instances and a ManualClock: requests, periods, signals (as events), waits.
struct ShutdownCoordinatorTests {

    // MARK: - Requests

    @Test func withNothingWatchedShutdownFinishesAtOnce() async throws {
        let (coordinator, clock) = makeCoordinator()
        let report = try await coordinator.shutdownGracefully()
        #expect(report == ShutdownReport(reason: .requested))
        #expect(report.isComplete)
        #expect(coordinator.phase == .finished)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func aNewCoordinatorIsRunningWithTheGivenPeriods() {
        let (coordinator, _) = makeCoordinator(gracePeriod: .seconds(3), cancellationPeriod: .seconds(1))
        #expect(coordinator.phase == .running)
        #expect(!coordinator.isShutdownRequested)
        #expect(coordinator.gracePeriod == .seconds(3))
        #expect(coordinator.cancellationPeriod == .seconds(1))
        #expect(coordinator.handledSignals == [])
    }

    @Test func requestingShutdownTwiceIsTheSameAsOnce() async {
        let (coordinator, clock) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        coordinator.requestShutdown()
        coordinator.requestShutdown()
        #expect(coordinator.isShutdownRequested)
        #expect(clock.scheduledActionCount == 1)  // one grace period
        clock.advance(by: .seconds(10))
        #expect(coordinator.phase == .cancellingStragglers)
        holder.release()
        ProcedureQueue().add(procedure: holder)
        #expect(await report(of: coordinator)?.signalsReceived == 0)
    }

    @Test func changingThePeriodsAppliesToTheNextShutdown() async {
        let (coordinator, clock) = makeCoordinator()
        coordinator.gracePeriod = .seconds(3)
        coordinator.cancellationPeriod = .seconds(2)
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        coordinator.requestShutdown()
        clock.advance(by: .seconds(3))
        #expect(coordinator.phase == .cancellingStragglers)
        clock.advance(by: .seconds(2))
        #expect(coordinator.phase == .finished)
        #expect(await report(of: coordinator)?.stillRunning == ["holder"])
        holder.release()
    }

    @Test func aTimeoutEndingSoonerShortensTheGracePeriodAndOneEndingLaterDoesNot() async {
        let (coordinator, clock) = makeCoordinator(gracePeriod: .seconds(10))
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        coordinator.requestShutdown()
        let waits = Task {
            async let later = coordinator.shutdownGracefully(timeout: .seconds(30))
            async let sooner = coordinator.shutdownGracefully(timeout: .seconds(4))
            return try await (later, sooner)
        }
        guard await clock.waitForScheduledActions(count: 3, timeout: hangTimeout) else {
            // Not awaited: with timers missing, the waits would never end.
            Issue.record("the grace period and the waits' timers were not all scheduled")
            waits.cancel()
            holder.release()
            return
        }
        clock.advance(by: .seconds(4))
        #expect(coordinator.phase == .cancellingStragglers)
        clock.advance(by: .seconds(5))  // the cancellation period
        let reports = try? await waits.value
        #expect(reports?.0 == reports?.1)
        #expect(reports?.0.stillRunning == ["holder"])
        #expect(clock.scheduledActionCount == 0)  // the 10 s and 30 s grace timers were cancelled
        holder.release()
    }

    @Test func timersAreCancelledWhenEverythingFinishesEarly() async {
        let (coordinator, clock) = makeCoordinator()
        let procedure = UntilCancelledProcedure(name: "poller")
        procedure.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        ProcedureQueue().add(procedure: procedure)
        coordinator.requestShutdown()
        _ = await report(of: coordinator)
        #expect(clock.scheduledActionCount == 0)
    }

    // MARK: - Signals (as events; ShutdownSignalTests sends real ones)

    @Test func theFirstSignalRequestsShutdownASecondEndsTheGracePeriodAndAThirdEndsTheWait() async {
        let (coordinator, clock) = makeCoordinator()
        let upload = StubbornProcedure(name: "upload")
        upload.addObserver(BackgroundObserver(cancelProcedure: .never, coordinator: coordinator))
        let job = StubbornProcedure(name: "job")
        job.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
        ProcedureQueue().add(procedures: upload, job)
        await executing(upload)
        await executing(job)

        // The machine takes each signal at once; what it says is done on a thread of its own, so the test waits
        // for the effects.
        coordinator.receive(signal: SIGTERM)
        #expect(coordinator.phase == .shuttingDown)
        await eventually("the grace period's timer is scheduled") { clock.scheduledActionCount == 1 }
        #expect(!job.isCancelled)
        coordinator.receive(signal: SIGTERM)
        #expect(coordinator.phase == .cancellingStragglers)
        await eventually("the job is cancelled") { shutdownContext(of: job) == .shutdownGracePeriodExpired }
        #expect(!upload.isCancelled)
        coordinator.receive(signal: SIGINT)
        #expect(coordinator.phase == .finished)
        await eventually("the upload is cancelled") { shutdownContext(of: upload) == .shutdownGracePeriodExpired }
        await eventually("every timer is cancelled") { clock.scheduledActionCount == 0 }

        let report = await report(of: coordinator)
        #expect(report?.reason == .signal(SIGTERM))
        #expect(report?.signalsReceived == 3)
        #expect(report?.stillRunning == ["upload", "job"])
        upload.release()
        job.release()
        await finished(upload)
        await finished(job)
    }

    @Test func aSignalAfterAProgrammaticRequestChangesNothingUntilTheSecond() {
        let (coordinator, _) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        coordinator.requestShutdown()
        coordinator.receive(signal: SIGTERM)
        #expect(coordinator.phase == .shuttingDown)
        coordinator.receive(signal: SIGTERM)
        #expect(coordinator.phase == .cancellingStragglers)
        holder.release()
    }

    // MARK: - Waiting

    @Test func everyWaiterGetsTheSameReport() async {
        let (coordinator, _) = makeCoordinator()
        let poller = UntilCancelledProcedure(name: "poller")
        poller.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        ProcedureQueue().add(procedure: poller)
        async let first = report(of: coordinator)
        async let second = report(of: coordinator)
        coordinator.requestShutdown()
        let reports = await [first, second]
        #expect(reports[0] != nil)
        #expect(reports[0] == reports[1])
        // Waiting after the end returns the same report at once.
        #expect(await report(of: coordinator) == reports[0])
    }

    @Test func aCancelledWaitThrowsCancellationErrorAndShutdownGoesOn() async {
        let (coordinator, _) = makeCoordinator()
        let poller = UntilCancelledProcedure(name: "poller")
        poller.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        ProcedureQueue().add(procedure: poller)
        let wait = Task { try await coordinator.waitForShutdown() }
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
        #expect(coordinator.phase == .running)
        coordinator.requestShutdown()
        #expect(await report(of: coordinator)?.finishedDuringGracePeriod == ["poller"])
    }

    @Test func theBlockingWaitsReturnTheReport() async {
        let (coordinator, _) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        ProcedureQueue().add(procedure: holder)
        // One thread waits for someone else's request, another requests and waits; neither holds a pool thread.
        async let waited = onThreadOfItsOwn { coordinator.syncWaitForShutdown() }
        async let requested = onThreadOfItsOwn { coordinator.syncShutdownGracefully(timeout: .seconds(60)) }
        await eventually("shutdown is requested") { coordinator.isShutdownRequested }
        holder.release()
        let reports = await [waited, requested]
        #expect(reports[0] == reports[1])
        #expect(reports[0].finishedDuringGracePeriod == ["holder"])
    }

    @Test func theWaitEndsWithinTheGraceAndCancellationPeriodsWhateverTheProceduresDo() async {
        let (coordinator, clock) = makeCoordinator(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        let stubborn = (0..<3).map { StubbornProcedure(name: "stubborn\($0)") }
        for (procedure, behavior) in zip(stubborn, BackgroundObserver.CancellationBehavior.allCases) {
            procedure.addObserver(BackgroundObserver(cancelProcedure: behavior, coordinator: coordinator))
        }
        ProcedureQueue().add(procedures: stubborn)
        for procedure in stubborn { await executing(procedure) }
        coordinator.requestShutdown()
        clock.advance(by: .seconds(15))
        #expect(coordinator.phase == .finished)
        let report = await report(of: coordinator)
        #expect(report?.stillRunning == stubborn.map(\.procedureName))
        #expect(stubborn.allSatisfy { $0.isCancelled })  // every one was told to stop before the wait ended
        for procedure in stubborn { procedure.release() }
    }
}
