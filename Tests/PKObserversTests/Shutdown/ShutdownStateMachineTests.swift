import Testing

@testable import PKObservers

/// The machine with plain values: procedures are named by strings, handles are their names, waiters are numbers.
private typealias Machine = ShutdownStateMachine<String, String, Int>
typealias Behavior = BackgroundObserver.CancellationBehavior

/// The phase a test puts the machine in before the event under test.
enum MachinePhase: CaseIterable, CustomTestStringConvertible {
    case running
    case shuttingDown
    case cancellingStragglers
    case finished

    var testDescription: String { "\(self)" }
}

/// A machine watching `watching` (name and behaviour, in registration order) and with `participants`, brought to
/// `phase` by a request with the default grace period (10 s, cancellation period 5 s) and, for the later phases,
/// the grace period's expiry or the end of the cancellation period.
private func machine(
    _ phase: MachinePhase, watching: [(String, Behavior)] = [("lazy", .never)], participants: [String] = []
) -> Machine {
    var machine = Machine(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
    for (name, behavior) in watching { _ = machine.register(name, name: name, behavior: behavior, handle: name) }
    // Participants are numbered from 1 in the order given, and their handles are their names.
    for (index, name) in participants.enumerated() {
        _ = machine.addParticipant(index + 1, name: name, stopOrder: 0, handle: name)
    }
    switch phase {
    case .running: break
    case .shuttingDown: _ = machine.requestShutdown(.requested, gracePeriod: nil)
    case .cancellingStragglers:
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        _ = machine.gracePeriodExpired()
    case .finished:
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        _ = machine.gracePeriodExpired()
        _ = machine.cancellationPeriodExpired()
    }
    return machine
}

private typealias Notices = Machine.Notices

private func cancel(_ handle: String, _ cause: Machine.Cause) -> Machine.Cancellation {
    Machine.Cancellation(handle: handle, cause: cause)
}

/// The request's notice for `reason`, telling `listeners`.
private func requested(_ reason: ShutdownReport.Reason, _ listeners: [Int] = []) -> Machine.RequestNotice {
    Machine.RequestNotice(reason: reason, listeners: listeners)
}

/// The three behaviours, one procedure each, named after them.
private let oneOfEach: [(String, Behavior)] = [
    ("never", .never), ("requested", .whenShutdownRequested), ("expires", .whenGracePeriodExpires),
]

/// The shutdown lifecycle as a value, state × event, without threads or clocks.
struct ShutdownStateMachineTests {

    // MARK: - Requests

    @Test func aRequestCancelsOnlyTheProceduresThatAskedForItAndStartsTheGracePeriod() {
        var machine = machine(.running, watching: oneOfEach)
        let action = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(
            action
                == .beginGracePeriod(
                    Notices(requested: requested(.requested), cancel: [cancel("requested", .shutdownRequested)]),
                    gracePeriod: .seconds(10), stopTimeout: .seconds(15)))
        #expect(machine.phase == .shuttingDown)
        #expect(machine.watchedCount == 3)
    }

    @Test func aRequestWithAGracePeriodOfItsOwnUsesIt() {
        var machine = machine(.running)
        let action = machine.requestShutdown(.requested, gracePeriod: .seconds(2))
        #expect(
            action
                == .beginGracePeriod(
                    Notices(requested: requested(.requested)), gracePeriod: .seconds(2), stopTimeout: .seconds(7)))
    }

    @Test func aRequestWithNothingWatchedFinishesAtOnce() {
        var machine = Machine(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        #expect(machine.addWaiter(1, 1) == .wait)
        let action = machine.requestShutdown(.signal(15), gracePeriod: nil)
        let report = ShutdownReport(reason: .signal(15), signalsReceived: 1)
        let notices = Notices(requested: requested(.signal(15)))
        #expect(action == .finish(.init(report: report, notices: notices, waiters: [1], shutdownBeganNow: true)))
        #expect(machine.phase == .finished)
    }

    @Test(arguments: [MachinePhase.shuttingDown, .cancellingStragglers, .finished])
    func aSecondRequestChangesNothing(_ phase: MachinePhase) {
        var machine = machine(phase)
        #expect(machine.requestShutdown(.requested, gracePeriod: nil) == .none)
        #expect(machine.phase == phase.expected)
    }

    @Test func aSecondRequestWithAGracePeriodAsksForAnEarlierExpiryWhileShuttingDown() {
        var machine = machine(.shuttingDown)
        #expect(machine.requestShutdown(.requested, gracePeriod: .seconds(1)) == .shortenGracePeriod(.seconds(1)))
        #expect(machine.phase == .shuttingDown)
    }

    @Test(arguments: [MachinePhase.cancellingStragglers, .finished])
    func aRequestWithAGracePeriodAfterTheGracePeriodChangesNothing(_ phase: MachinePhase) {
        var machine = machine(phase)
        #expect(machine.requestShutdown(.requested, gracePeriod: .seconds(1)) == .none)
    }

    // MARK: - The grace period

    @Test func proceduresFinishingDuringTheGracePeriodAreReportedAndTheLastEndsTheWait() {
        var machine = machine(.running, watching: oneOfEach)
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(machine.addWaiter(7, 7) == .wait)
        #expect(machine.procedureFinished("requested") == .none)
        #expect(machine.procedureFinished("never") == .none)
        let report = ShutdownReport(reason: .requested, finishedDuringGracePeriod: ["requested", "never", "expires"])
        #expect(
            machine.procedureFinished("expires")
                == .finish(.init(report: report, notices: Notices(), waiters: [7], shutdownBeganNow: false)))
        #expect(machine.watchedCount == 0)
    }

    @Test func theGracePeriodExpiringCancelsThoseWaitingForItAndMakesEveryoneLeftAStraggler() {
        var machine = machine(.shuttingDown, watching: oneOfEach)
        let action = machine.gracePeriodExpired()
        #expect(
            action
                == .beginCancellationPeriod(
                    Notices(cancel: [cancel("expires", .gracePeriodExpired)]), period: .seconds(5)))
        #expect(machine.phase == .cancellingStragglers)
    }

    @Test(arguments: [MachinePhase.cancellingStragglers, .finished])
    func aLateGracePeriodExpiryChangesNothing(_ phase: MachinePhase) {
        var machine = machine(phase, watching: oneOfEach)
        #expect(machine.gracePeriodExpired() == .none)
        #expect(machine.phase == phase.expected)
    }

    // MARK: - The cancellation period

    @Test func theCancellationPeriodEndingCancelsWhatIsLeftAndReportsEachStraggler() {
        var machine = machine(.cancellingStragglers, watching: oneOfEach)
        #expect(machine.addWaiter(2, 2) == .wait)
        #expect(machine.addWaiter(1, 1) == .wait)
        #expect(machine.procedureFinished("expires") == .none)
        let report = ShutdownReport(
            reason: .requested, signalsReceived: 0,
            stragglers: [
                .init(name: "never", behavior: .never, finished: false),
                .init(name: "requested", behavior: .whenShutdownRequested, finished: false),
                .init(name: "expires", behavior: .whenGracePeriodExpires, finished: true),
            ])
        // Only "never" was not cancelled yet; "requested" was cancelled when shutdown was requested.
        let finish = Machine.Finish(
            report: report, notices: Notices(cancel: [cancel("never", .gracePeriodExpired)]), waiters: [1, 2],
            shutdownBeganNow: false)
        #expect(machine.cancellationPeriodExpired() == .finish(finish))
        #expect(machine.watchedCount == 0)
        #expect(report.stillRunning == ["never", "requested"])
        #expect(!report.isComplete)
    }

    @Test func theLastStragglerFinishingEndsTheWaitWithEveryStragglerFinished() {
        var machine = machine(.cancellingStragglers, watching: [("a", .never), ("b", .whenGracePeriodExpires)])
        #expect(machine.procedureFinished("b") == .none)
        guard case .finish(let finish) = machine.procedureFinished("a") else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.stragglers.map(\.finished) == [true, true])
        #expect(finish.report.isComplete)
        #expect(finish.notices.cancel.isEmpty)
    }

    @Test func aCancellationPeriodEndingAfterEverythingFinishedChangesNothing() {
        var machine = machine(.cancellingStragglers)
        _ = machine.procedureFinished("lazy")
        #expect(machine.cancellationPeriodExpired() == .none)
    }

    // MARK: - Signals

    @Test func theFirstSignalRequestsShutdownWithTheConfiguredGracePeriod() {
        var machine = machine(.running)
        #expect(
            machine.signalReceived(15)
                == .beginGracePeriod(
                    Notices(requested: requested(.signal(15))), gracePeriod: .seconds(10), stopTimeout: .seconds(15)))
        #expect(machine.phase == .shuttingDown)
    }

    @Test func aSecondSignalEndsTheGracePeriodAndAThirdEndsTheWait() {
        var machine = machine(.running, watching: oneOfEach)
        _ = machine.signalReceived(15)
        #expect(
            machine.signalReceived(15)
                == .beginCancellationPeriod(
                    Notices(cancel: [cancel("expires", .gracePeriodExpired)]), period: .seconds(5)))
        guard case .finish(let finish) = machine.signalReceived(2) else {
            Issue.record("expected the third signal to end the wait")
            return
        }
        #expect(finish.report.reason == .signal(15))
        #expect(finish.report.signalsReceived == 3)
        #expect(finish.notices.cancel.map(\.handle) == ["never"])
    }

    @Test func afterAProgrammaticRequestTheFirstSignalChangesNothingAndTheSecondEndsTheGracePeriod() {
        var machine = machine(.shuttingDown)
        #expect(machine.signalReceived(15) == .none)
        #expect(machine.phase == .shuttingDown)
        #expect(machine.signalReceived(15) == .beginCancellationPeriod(Notices(), period: .seconds(5)))
    }

    @Test func afterTheGracePeriodExpiredTheNextSignalEndsTheWaitIfOneCameBefore() {
        var machine = machine(.running)
        _ = machine.signalReceived(15)
        _ = machine.gracePeriodExpired()
        guard case .finish(let finish) = machine.signalReceived(15) else {
            Issue.record("expected the second signal to end the wait")
            return
        }
        #expect(finish.report.signalsReceived == 2)
    }

    @Test func aSignalAfterTheWaitEndedChangesNothing() {
        var machine = machine(.finished)
        #expect(machine.signalReceived(15) == .none)
    }

    // MARK: - Registration

    @Test(arguments: MachinePhase.allCases, Behavior.allCases)
    func aProcedureAttachingIsCancelledAtOnceOnlyWhenItsMomentHasPassed(_ phase: MachinePhase, _ behavior: Behavior) {
        var machine = machine(phase)
        let action = machine.register("new", name: "new", behavior: behavior, handle: "new")
        let expected: Machine.RegisterAction =
            switch (phase, behavior) {
            case (.running, _), (.shuttingDown, .never), (.shuttingDown, .whenGracePeriodExpires),
                (.cancellingStragglers, .never):
                .registered
            case (_, .whenShutdownRequested): .cancel(.shutdownRequested)
            case (.cancellingStragglers, .whenGracePeriodExpires), (.finished, _): .cancel(.gracePeriodExpired)
            }
        #expect(action == expected)
        // Once finished, nothing is watched any more.
        #expect(machine.watchedHandle(for: "new") == (phase == .finished ? nil : "new"))
    }

    @Test func aProcedureAttachingDuringTheCancellationPeriodIsAStraggler() {
        var machine = machine(.cancellingStragglers)
        _ = machine.register("late", name: "late", behavior: .whenGracePeriodExpires, handle: "late")
        _ = machine.procedureFinished("late")
        guard case .finish(let finish) = machine.cancellationPeriodExpired() else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.stragglers.map(\.name) == ["lazy", "late"])
        #expect(finish.report.stragglers.map(\.finished) == [false, true])
    }

    @Test func aSecondRegistrationIsADuplicateAndTheEarlierCancellingBehaviourWins() {
        var machine = machine(.running, watching: [("p", .never)])
        #expect(
            machine.register("p", name: "p", behavior: .whenGracePeriodExpires, handle: "p") == .duplicate(cancel: nil))
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(
            machine.register("p", name: "p", behavior: .whenShutdownRequested, handle: "p")
                == .duplicate(cancel: .shutdownRequested))
        #expect(machine.register("p", name: "p", behavior: .never, handle: "p") == .duplicate(cancel: nil))
        #expect(machine.watchedCount == 1)
    }

    @Test func aDuplicateDuringTheCancellationPeriodUpdatesTheStragglersBehaviour() {
        var machine = machine(.cancellingStragglers)
        #expect(
            machine.register("lazy", name: "lazy", behavior: .whenGracePeriodExpires, handle: "lazy")
                == .duplicate(cancel: .gracePeriodExpired))
        guard case .finish(let finish) = machine.cancellationPeriodExpired() else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.stragglers == [.init(name: "lazy", behavior: .whenGracePeriodExpires, finished: false)])
        #expect(finish.notices.cancel.isEmpty)  // already cancelled by the duplicate
    }

    @Test(arguments: MachinePhase.allCases)
    func anUnknownProcedureFinishingChangesNothing(_ phase: MachinePhase) {
        var machine = machine(phase)
        #expect(machine.procedureFinished("stranger") == .none)
        #expect(machine.phase == phase.expected)
    }

    @Test func aProcedureFinishingBeforeShutdownIsForgottenAndNotReported() {
        var machine = machine(.running, watching: oneOfEach)
        #expect(machine.procedureFinished("never") == .none)
        #expect(machine.watchedCount == 2)
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        _ = machine.procedureFinished("requested")
        guard case .finish(let finish) = machine.procedureFinished("expires") else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.finishedDuringGracePeriod == ["requested", "expires"])
    }

    // MARK: - Waiters

    @Test func aWaiterAddedAfterTheEndIsResumedAtOnceWithTheReport() {
        var machine = Machine(gracePeriod: .seconds(1), cancellationPeriod: .seconds(1))
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(machine.addWaiter(3, 3) == .resume(3, ShutdownReport(reason: .requested)))
    }

    @Test func aRemovedWaiterIsNotResumed() {
        var machine = machine(.shuttingDown)
        #expect(machine.addWaiter(1, 1) == .wait)
        #expect(machine.addWaiter(2, 2) == .wait)
        #expect(machine.removeWaiter(1) == 1)
        #expect(machine.removeWaiter(1) == nil)
        guard case .finish(let finish) = machine.procedureFinished("lazy") else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.waiters == [2])
    }

    // MARK: - Participants

    @Test func participantsStopOneAtATimeInStopOrderTheMostRecentlyAddedFirst() {
        var machine = Machine(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        for (id, name, order) in [(1, "a", 0), (2, "b", 0), (3, "last", 1), (4, "c", 0)] {
            #expect(machine.addParticipant(id, name: name, stopOrder: order, handle: name) == .none)
        }
        #expect(
            machine.requestShutdown(.requested, gracePeriod: nil)
                == .beginGracePeriod(
                    Notices(requested: requested(.requested), stop: ["c"]), gracePeriod: .seconds(10),
                    stopTimeout: .seconds(15)))
        #expect(machine.participantStopped(4, error: nil) == .notify(Notices(stop: ["b"])))
        #expect(machine.participantStopped(2, error: nil) == .notify(Notices(stop: ["a"])))
        #expect(machine.participantStopped(1, error: nil) == .notify(Notices(stop: ["last"])))
        guard case .finish(let finish) = machine.participantStopped(3, error: nil) else {
            Issue.record("expected the last stop to finish the machine")
            return
        }
        #expect(finish.report.participants == ["c", "b", "a", "last"].map { .init(name: $0, outcome: .stopped) })
        #expect(finish.report.isComplete)
        #expect(machine.participantCount == 0)
    }

    @Test func aStopThatThrowsIsReportedAsAFailureAndTheNextOneStillBegins() {
        var machine = machine(.running, watching: [], participants: ["a", "b"])
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(machine.participantStopped(2, error: ConnectionLost()) == .notify(Notices(stop: ["a"])))
        guard case .finish(let finish) = machine.participantStopped(1, error: nil) else {
            Issue.record("expected the machine to finish")
            return
        }
        let failure = ShutdownReport.Failure(name: "b", error: ConnectionLost())
        #expect(
            finish.report.participants == [
                .init(name: "b", outcome: .failed(failure)), .init(name: "a", outcome: .stopped),
            ])
        #expect(finish.report.failures == [failure])
    }

    @Test func theGracePeriodExpiringHurriesTheStopInProgressAndBeginsEveryOtherAtOnce() {
        var machine = machine(.running, watching: [("job", .whenGracePeriodExpires)], participants: ["a", "b", "c"])
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(
            machine.gracePeriodExpired()
                == .beginCancellationPeriod(
                    Notices(cancel: [cancel("job", .gracePeriodExpired)], stop: ["b", "a"], hurry: ["c", "b", "a"]),
                    period: .seconds(5)))
        #expect(machine.participantStopped(1, error: nil) == .none)
        #expect(machine.procedureFinished("job") == .none)
        guard case .finish(let finish) = machine.cancellationPeriodExpired() else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(
            finish.report.participants == [
                .init(name: "c", outcome: .stillStopping), .init(name: "b", outcome: .stillStopping),
                .init(name: "a", outcome: .stoppedAfterGracePeriod),
            ])
        #expect(finish.report.stillRunning == ["c", "b"])
        #expect(!finish.report.isComplete)
        #expect(finish.notices == Notices())  // the stops were hurried already
    }

    @Test func aParticipantAddedWhileShuttingDownTakesItsPlaceAmongThoseNotStoppedYet() {
        var machine = machine(.running, participants: ["a", "b"])
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(machine.addParticipant(3, name: "new", stopOrder: 0, handle: "new") == .none)  // b is stopping
        #expect(machine.addParticipant(4, name: "late", stopOrder: 1, handle: "late") == .none)
        #expect(machine.participantStopped(2, error: nil) == .notify(Notices(stop: ["new"])))
        #expect(machine.participantStopped(3, error: nil) == .notify(Notices(stop: ["a"])))
        #expect(machine.participantStopped(1, error: nil) == .notify(Notices(stop: ["late"])))
    }

    @Test func aParticipantAddedWhileShuttingDownWithNoStopInProgressStopsAtOnce() {
        var machine = machine(.shuttingDown)  // a procedure holds shutdown open; no participant
        #expect(machine.addParticipant(1, name: "new", stopOrder: 0, handle: "new") == .notify(Notices(stop: ["new"])))
        #expect(machine.procedureFinished("lazy") == .none)  // the participant is still stopping
        guard case .finish(let finish) = machine.participantStopped(1, error: nil) else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.participants == [.init(name: "new", outcome: .stopped)])
    }

    @Test(arguments: [MachinePhase.cancellingStragglers, .finished])
    func aParticipantAddedOnceTimeHasRunOutIsStoppedAtOnceAndHurried(_ phase: MachinePhase) {
        var machine = machine(phase)
        #expect(
            machine.addParticipant(1, name: "new", stopOrder: 0, handle: "new")
                == .notify(Notices(stop: ["new"], hurry: ["new"])))
        // Nothing waits for it after the end.
        #expect(machine.participantCount == (phase == .finished ? 0 : 1))
        #expect(machine.participantStopped(1, error: nil) == .none)
    }

    @Test func aRemovedParticipantIsNeverStopped() {
        var machine = machine(.running, watching: [], participants: ["a", "b", "c"])
        #expect(machine.removeParticipant(2) == .none)
        #expect(machine.participantCount == 2)
        _ = machine.requestShutdown(.requested, gracePeriod: nil)  // c begins
        #expect(machine.removeParticipant(1) == .none)  // a had not begun: forgotten
        #expect(machine.removeParticipant(3) == .none)  // c is stopping: kept until it returns
        guard case .finish(let finish) = machine.participantStopped(3, error: nil) else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.participants.map(\.name) == ["c"])
    }

    @Test func shutdownWaitsForTheProceduresAndTheParticipantsAlike() {
        var machine = machine(.running, watching: [("job", .never)], participants: ["a"])
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        #expect(machine.participantStopped(1, error: nil) == .none)
        guard case .finish(let finish) = machine.procedureFinished("job") else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.finishedDuringGracePeriod == ["job"])
        #expect(finish.report.participants == [.init(name: "a", outcome: .stopped)])
    }

    @Test func aThirdSignalEndsTheWaitWithTheStopsStillRunningReported() {
        var machine = machine(.running, watching: [], participants: ["a", "b"])
        _ = machine.signalReceived(15)
        _ = machine.signalReceived(15)
        guard case .finish(let finish) = machine.signalReceived(15) else {
            Issue.record("expected the third signal to end the wait")
            return
        }
        #expect(finish.report.stillRunning == ["b", "a"])
        #expect(machine.participantStopped(2, error: nil) == .none)
    }

    // MARK: - Failures

    @Test func aFailureRequestsShutdownWithoutCountingAsASignal() {
        var machine = machine(.running)
        let failure = ShutdownReport.Failure(name: "feed", error: ConnectionLost())
        #expect(
            machine.requestShutdown(.failure(failure), gracePeriod: nil)
                == .beginGracePeriod(
                    Notices(requested: requested(.failure(failure))), gracePeriod: .seconds(10),
                    stopTimeout: .seconds(15)))
        #expect(machine.signalReceived(15) == .none)
        #expect(machine.phase == .shuttingDown)
        let other = ShutdownReport.Failure(name: "other", error: ConnectionLost())
        #expect(machine.requestShutdown(.failure(other), gracePeriod: nil) == .none)
    }

    // MARK: - Request listeners

    @Test func requestListenersAreToldOnceInTheOrderTheyWereAdded() {
        var machine = machine(.running)
        #expect(machine.addRequestListener(2, 2) == .wait)
        #expect(machine.addRequestListener(1, 1) == .wait)
        #expect(machine.requestListenerCount == 2)
        #expect(
            machine.signalReceived(15)
                == .beginGracePeriod(
                    Notices(requested: requested(.signal(15), [1, 2])), gracePeriod: .seconds(10),
                    stopTimeout: .seconds(15)))
        #expect(machine.requestListenerCount == 0)
        #expect(machine.signalReceived(15) == .beginCancellationPeriod(Notices(), period: .seconds(5)))
    }

    @Test(arguments: [MachinePhase.shuttingDown, .cancellingStragglers, .finished])
    func aRequestListenerAddedAfterTheRequestIsToldAtOnce(_ phase: MachinePhase) {
        var machine = machine(phase)
        #expect(machine.addRequestListener(1, 1) == .notify(1, .requested))
        #expect(machine.requestListenerCount == 0)
    }

    @Test func aRemovedRequestListenerIsNotTold() {
        var machine = machine(.running)
        _ = machine.addRequestListener(1, 1)
        _ = machine.addRequestListener(2, 2)
        #expect(machine.removeRequestListener(1) == 1)
        #expect(machine.removeRequestListener(1) == nil)
        guard case .beginGracePeriod(let notices, _, _) = machine.requestShutdown(.requested, gracePeriod: nil) else {
            Issue.record("expected the grace period to begin")
            return
        }
        #expect(notices.requested?.listeners == [2])
        #expect(machine.removeRequestListener(2) == nil)  // handed over to be told
    }

    @Test func aRequestWithNothingToWaitForTellsTheListenersAsItFinishes() {
        var machine = Machine(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        _ = machine.addRequestListener(1, 1)
        guard case .finish(let finish) = machine.requestShutdown(.requested, gracePeriod: nil) else {
            Issue.record("expected the machine to finish at once")
            return
        }
        #expect(finish.notices.requested == requested(.requested, [1]))
        #expect(finish.shutdownBeganNow)
    }
}

extension MachinePhase {
    /// The public phase a machine built in this phase is in.
    var expected: ShutdownPhase {
        switch self {
        case .running: .running
        case .shuttingDown: .shuttingDown
        case .cancellingStragglers: .cancellingStragglers
        case .finished: .finished
        }
    }
}
