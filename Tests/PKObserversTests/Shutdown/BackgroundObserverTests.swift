import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// BackgroundObserver on a private coordinator: what each behaviour does, attaching late, duplicates, retention.
struct BackgroundObserverTests {

    @Test func attachingRegistersTheProcedureAndFinishingForgetsIt() async {
        let (coordinator, _) = makeCoordinator()
        let procedure = StubbornProcedure(name: "work")
        procedure.addObserver(BackgroundObserver(coordinator: coordinator))
        #expect(coordinator.watchedProcedureCount == 1)
        ProcedureQueue().add(procedure: procedure)
        procedure.release()
        await finished(procedure)
        #expect(coordinator.watchedProcedureCount == 0)
        #expect(coordinator.phase == .running)
    }

    @Test func theDefaultBehaviourIsNeverAndTheDefaultCoordinatorIsShared() {
        let observer = BackgroundObserver()
        #expect(observer.behavior == .never)
        #expect(observer.coordinator === ShutdownCoordinator.shared)
    }

    @Test func whenAppIsBackgroundedIsProcedureKitsNameForWhenShutdownRequested() {
        #expect(BackgroundObserver.CancellationBehavior.whenAppIsBackgrounded == .whenShutdownRequested)
        #expect(BackgroundObserver(cancelProcedure: .whenAppIsBackgrounded).behavior == .whenShutdownRequested)
    }

    // MARK: - Behaviours

    @Test func neverIsNotCancelledByTheRequestAndHoldsShutdownOpenUntilItFinishes() async {
        let (coordinator, _) = makeCoordinator()
        let upload = StubbornProcedure(name: "upload")
        upload.addObserver(BackgroundObserver(cancelProcedure: .never, coordinator: coordinator))
        ProcedureQueue().add(procedure: upload)
        coordinator.requestShutdown()
        #expect(!upload.isCancelled)
        #expect(coordinator.phase == .shuttingDown)
        upload.release()
        let report = await report(of: coordinator)
        #expect(report == ShutdownReport(reason: .requested, finishedDuringGracePeriod: ["upload"]))
        #expect(!upload.isCancelled)
        #expect(coordinator.phase == .finished)
    }

    @Test func whenShutdownRequestedIsCancelledAsSoonAsShutdownIsRequested() async {
        let (coordinator, _) = makeCoordinator()
        let poller = UntilCancelledProcedure(name: "poller")
        poller.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        ProcedureQueue().add(procedure: poller)
        #expect(!poller.isCancelled)
        coordinator.requestShutdown()
        #expect(poller.isCancelled)
        await finished(poller)
        #expect(shutdownContext(of: poller) == .shutdownRequested)
        let report = await report(of: coordinator)
        #expect(report?.finishedDuringGracePeriod == ["poller"])
        #expect(report?.stragglers == [])
    }

    @Test func whenGracePeriodExpiresIsCancelledOnlyWhenTheGracePeriodExpires() async {
        let (coordinator, clock) = makeCoordinator(gracePeriod: .seconds(10))
        let job = UntilCancelledProcedure(name: "job")
        job.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
        ProcedureQueue().add(procedure: job)
        coordinator.requestShutdown()
        clock.advance(by: .seconds(9))
        #expect(!job.isCancelled)
        #expect(coordinator.phase == .shuttingDown)
        clock.advance(by: .seconds(1))
        #expect(job.isCancelled)
        await finished(job)
        #expect(shutdownContext(of: job) == .shutdownGracePeriodExpired)
        let report = await report(of: coordinator)
        #expect(report?.stragglers == [.init(name: "job", behavior: .whenGracePeriodExpires, finished: true)])
        #expect(report?.isComplete == true)
    }

    @Test func neverIsCancelledOnlyAsALastNoticeWhenTheWaitEnds() async {
        let (coordinator, clock) = makeCoordinator(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        let upload = StubbornProcedure(name: "upload")
        upload.addObserver(BackgroundObserver(coordinator: coordinator))
        ProcedureQueue().add(procedure: upload)
        await executing(upload)
        coordinator.requestShutdown()
        clock.advance(by: .seconds(10))
        #expect(coordinator.phase == .cancellingStragglers)
        #expect(!upload.isCancelled)
        clock.advance(by: .seconds(5))
        #expect(coordinator.phase == .finished)
        #expect(upload.isCancelled)
        #expect(shutdownContext(of: upload) == .shutdownGracePeriodExpired)
        let report = await report(of: coordinator)
        #expect(report?.stillRunning == ["upload"])
        upload.release()
        await finished(upload)
    }

    @Test func aProcedureIgnoringCancellationIsReportedWhenTheWaitEndsInsteadOfHoldingItOpen() async {
        let (coordinator, clock) = makeCoordinator(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        let stubborn = StubbornProcedure(name: "stubborn")
        stubborn.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        ProcedureQueue().add(procedure: stubborn)
        await executing(stubborn)  // cancelled before it executes, it would finish at once
        coordinator.requestShutdown()
        #expect(stubborn.isCancelled)
        clock.advance(by: .seconds(10))
        clock.advance(by: .seconds(5))
        let report = await report(of: coordinator)
        #expect(report?.stragglers == [.init(name: "stubborn", behavior: .whenShutdownRequested, finished: false)])
        #expect(report?.isComplete == false)
        #expect(!stubborn.isFinished)
        stubborn.release()
        await finished(stubborn)
    }

    // MARK: - Attaching late

    @Test(arguments: [
        (
            BackgroundObserver.CancellationBehavior.whenShutdownRequested,
            ProcedureKitError.Context?.some(.shutdownRequested)
        ),
        (.whenGracePeriodExpires, nil),
        (.never, nil),
    ])
    func attachingWhileShuttingDownCancelsOnlyWhatAskedToStopWhenShutdownWasRequested(
        _ behavior: BackgroundObserver.CancellationBehavior, _ expected: ProcedureKitError.Context?
    ) async {
        let (coordinator, _) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        coordinator.requestShutdown()
        let late = StubbornProcedure(name: "late")
        late.addObserver(BackgroundObserver(cancelProcedure: behavior, coordinator: coordinator))
        #expect(late.isCancelled == (expected != nil))
        #expect(shutdownContext(of: late) == expected)
        #expect(coordinator.watchedProcedureCount == 2)
        holder.release()
        late.release()
        ProcedureQueue().add(procedures: holder, late)
        #expect(await report(of: coordinator)?.finishedDuringGracePeriod.sorted() == ["holder", "late"])
    }

    @Test(arguments: BackgroundObserver.CancellationBehavior.allCases)
    func attachingAfterTheWaitEndedCancelsAtOnceAndIsNotWatched(_ behavior: BackgroundObserver.CancellationBehavior)
        async
    {
        let (coordinator, _) = makeCoordinator()
        _ = try? await coordinator.shutdownGracefully()
        let late = UntilCancelledProcedure(name: "late")
        late.addObserver(BackgroundObserver(cancelProcedure: behavior, coordinator: coordinator))
        #expect(late.isCancelled)
        #expect(
            shutdownContext(of: late)
                == (behavior == .whenShutdownRequested ? .shutdownRequested : .shutdownGracePeriodExpired))
        #expect(coordinator.watchedProcedureCount == 0)
    }

    @Test func attachingAfterTheGracePeriodCancelsThoseWaitingForItAndMakesThemStragglers() async {
        let (coordinator, clock) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        ProcedureQueue().add(procedure: holder)
        coordinator.requestShutdown()
        clock.advance(by: .seconds(10))
        let late = UntilCancelledProcedure(name: "late")
        late.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
        #expect(shutdownContext(of: late) == .shutdownGracePeriodExpired)
        ProcedureQueue().add(procedure: late)
        await finished(late)
        holder.release()
        let report = await report(of: coordinator)
        #expect(report?.stragglers.map(\.name) == ["holder", "late"])
        #expect(report?.isComplete == true)
    }

    // MARK: - Duplicates

    @Test func aSecondBackgroundObserverLogsAWarningAndTheEarlierCancellingBehaviourApplies() async {
        let (coordinator, _) = makeCoordinator()
        let writer = TestableLogWriter()
        let procedure = UntilCancelledProcedure(name: "twice")
        procedure.log.writer = writer
        // Another suite may switch logging off meanwhile; hold the global settings (off the cooperative pool).
        await onThreadOfItsOwn {
            GlobalLogSettings.with(enabled: true, severity: .info) {
                procedure.addObserver(BackgroundObserver(cancelProcedure: .never, coordinator: coordinator))
                procedure.addObserver(
                    BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
            }
        }
        let warnings = writer.entries.filter { $0.severity == .warning }.map(\.message)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("already has a BackgroundObserver") == true)
        #expect(coordinator.watchedProcedureCount == 1)
        coordinator.requestShutdown()
        #expect(procedure.isCancelled)
        ProcedureQueue().add(procedure: procedure)
        #expect(await report(of: coordinator)?.finishedDuringGracePeriod == ["twice"])
    }

    @Test func oneObserverValueWatchesSeveralProcedures() async {
        let (coordinator, _) = makeCoordinator()
        let observer = BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator)
        let procedures = (0..<3).map { UntilCancelledProcedure(name: "p\($0)") }
        for procedure in procedures { procedure.addObserver(observer) }
        #expect(coordinator.watchedProcedureCount == 3)
        ProcedureQueue().add(procedures: procedures)
        coordinator.requestShutdown()
        #expect(procedures.allSatisfy { $0.isCancelled })
        #expect(await report(of: coordinator)?.finishedDuringGracePeriod.count == 3)
    }

    // MARK: - Retention

    @Test func neitherTheProcedureNorTheCoordinatorIsKeptAliveAfterTheProcedureFinishes() async {
        let leaks = LeakCheck()
        do {
            let (coordinator, _) = makeCoordinator()
            let procedure = StubbornProcedure(name: "work")
            procedure.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
            leaks.track(procedure)
            leaks.track(coordinator)
            ProcedureQueue().add(procedure: procedure)
            procedure.release()
            await finished(procedure)
        }
        #expect(await leaks.unreleased(timeout: hangTimeout) == [])
    }

    @Test func theCoordinatorDoesNotKeepAProcedureAliveWhileItIsWatched() async {
        let leaks = LeakCheck()
        let (coordinator, _) = makeCoordinator()
        do {
            let procedure = StubbornProcedure(name: "dropped")
            procedure.addObserver(BackgroundObserver(coordinator: coordinator))
            leaks.track(procedure)
            #expect(coordinator.watchedProcedureCount == 1)
        }
        #expect(await leaks.unreleased(timeout: hangTimeout) == [])
        // Released without ever finishing: it does not hold shutdown open.
        coordinator.requestShutdown()
        #expect(coordinator.phase == .finished)
        #expect(await report(of: coordinator) == ShutdownReport(reason: .requested))
    }

    @Test func aProcedureReleasedDuringTheGracePeriodEndsTheWaitWhenTheGracePeriodExpires() async {
        let leaks = LeakCheck()
        let (coordinator, clock) = makeCoordinator()
        do {
            let procedure = StubbornProcedure(name: "dropped")
            procedure.addObserver(BackgroundObserver(coordinator: coordinator))
            leaks.track(procedure)
            coordinator.requestShutdown()
        }
        #expect(await leaks.unreleased(timeout: hangTimeout) == [])
        #expect(coordinator.phase == .shuttingDown)
        clock.advance(by: .seconds(10))
        #expect(coordinator.phase == .finished)
        #expect(await report(of: coordinator)?.stillRunning == [])
    }

    // MARK: - Failures

    @Test func aFailingProcedureThatOptedInRequestsShutdownWithItsNameAndError() async throws {
        let (coordinator, _) = makeCoordinator()
        let holder = StubbornProcedure(name: "holder")  // keeps shutdown open, to see it begin
        holder.addObserver(BackgroundObserver(coordinator: coordinator))
        let feed = ClosureProcedure("feed", error: ConnectionLost())
        feed.addObserver(
            BackgroundObserver(
                cancelProcedure: .whenShutdownRequested, requestsShutdownOnFailure: true, coordinator: coordinator))
        ProcedureQueue().add(procedures: holder, feed)
        let failure = ShutdownReport.Failure(name: "feed", error: ConnectionLost())
        #expect(try await coordinator.waitForShutdownRequest() == .failure(failure))
        holder.release()
        let report = await report(of: coordinator)
        #expect(report?.reason == .failure(failure))
        #expect(report?.finishedDuringGracePeriod == ["holder"])  // the feed had finished before
        #expect(report?.failures == [failure])
    }

    @Test func aFailingProcedureThatDidNotOptInRequestsNothing() async {
        #expect(!BackgroundObserver().requestsShutdownOnFailure)
        let (coordinator, _) = makeCoordinator()
        let feed = ClosureProcedure("feed", error: ConnectionLost())
        feed.addObserver(BackgroundObserver(coordinator: coordinator))
        ProcedureQueue().add(procedure: feed)
        await eventually("the feed is no longer watched") { coordinator.watchedProcedureCount == 0 }
        #expect(coordinator.phase == .running)
    }

    @Test func aProcedureCancelledByAShutdownHasNotFailed() async {
        // Watched by two coordinators: cancelled by the first one's shutdown, it must not shut the second down.
        let (first, _) = makeCoordinator()
        let (second, _) = makeCoordinator()
        let poller = UntilCancelledProcedure(name: "poller")
        poller.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: first))
        poller.addObserver(BackgroundObserver(requestsShutdownOnFailure: true, coordinator: second))
        ProcedureQueue().add(procedure: poller)
        await executing(poller)
        first.requestShutdown()
        await eventually("the second coordinator hears the poller finish") { second.watchedProcedureCount == 0 }
        #expect(shutdownContext(of: poller) == .shutdownRequested)  // it finished with the shutdown's error
        #expect(second.phase == .running)
        #expect(BackgroundObserver.isShutdownCancellation(ProcedureKitError.shutdownGracePeriodExpired()))
        #expect(!BackgroundObserver.isShutdownCancellation(ConnectionLost()))
    }
}
