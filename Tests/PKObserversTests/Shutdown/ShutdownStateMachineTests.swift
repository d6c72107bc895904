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

/// A machine watching `watching` (name and behaviour, in registration order), brought to `phase` by a request with
/// the default grace period (10 s, cancellation period 5 s) and, for the later phases, the grace period's expiry
/// or the end of the cancellation period.
private func machine(_ phase: MachinePhase, watching: [(String, Behavior)] = [("lazy", .never)]) -> Machine {
    var machine = Machine(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
    for (name, behavior) in watching { _ = machine.register(name, name: name, behavior: behavior, handle: name) }
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

private func cancel(_ handle: String, _ cause: Machine.Cause) -> Machine.Cancellation {
    Machine.Cancellation(handle: handle, cause: cause)
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
                    cancel: [cancel("requested", .shutdownRequested)], gracePeriod: .seconds(10),
                    stopTimeout: .seconds(15)))
        #expect(machine.phase == .shuttingDown)
        #expect(machine.participantCount == 3)
    }

    @Test func aRequestWithAGracePeriodOfItsOwnUsesIt() {
        var machine = machine(.running)
        let action = machine.requestShutdown(.requested, gracePeriod: .seconds(2))
        #expect(action == .beginGracePeriod(cancel: [], gracePeriod: .seconds(2), stopTimeout: .seconds(7)))
    }

    @Test func aRequestWithNothingWatchedFinishesAtOnce() {
        var machine = Machine(gracePeriod: .seconds(10), cancellationPeriod: .seconds(5))
        #expect(machine.addWaiter(1, 1) == .wait)
        let action = machine.requestShutdown(.signal(15), gracePeriod: nil)
        let report = ShutdownReport(reason: .signal(15), signalsReceived: 1)
        #expect(action == .finish(.init(report: report, cancel: [], waiters: [1], shutdownBeganNow: true)))
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
        #expect(machine.participantFinished("requested") == .none)
        #expect(machine.participantFinished("never") == .none)
        let report = ShutdownReport(reason: .requested, finishedDuringGracePeriod: ["requested", "never", "expires"])
        #expect(
            machine.participantFinished("expires")
                == .finish(.init(report: report, cancel: [], waiters: [7], shutdownBeganNow: false)))
        #expect(machine.participantCount == 0)
    }

    @Test func theGracePeriodExpiringCancelsThoseWaitingForItAndMakesEveryoneLeftAStraggler() {
        var machine = machine(.shuttingDown, watching: oneOfEach)
        let action = machine.gracePeriodExpired()
        #expect(
            action == .beginCancellationPeriod(cancel: [cancel("expires", .gracePeriodExpired)], period: .seconds(5)))
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
        #expect(machine.participantFinished("expires") == .none)
        let report = ShutdownReport(
            reason: .requested, signalsReceived: 0,
            stragglers: [
                .init(name: "never", behavior: .never, finished: false),
                .init(name: "requested", behavior: .whenShutdownRequested, finished: false),
                .init(name: "expires", behavior: .whenGracePeriodExpires, finished: true),
            ])
        // Only "never" was not cancelled yet; "requested" was cancelled when shutdown was requested.
        let finish = Machine.Finish(
            report: report, cancel: [cancel("never", .gracePeriodExpired)], waiters: [1, 2], shutdownBeganNow: false)
        #expect(machine.cancellationPeriodExpired() == .finish(finish))
        #expect(machine.participantCount == 0)
        #expect(report.stillRunning == ["never", "requested"])
        #expect(!report.isComplete)
    }

    @Test func theLastStragglerFinishingEndsTheWaitWithEveryStragglerFinished() {
        var machine = machine(.cancellingStragglers, watching: [("a", .never), ("b", .whenGracePeriodExpires)])
        #expect(machine.participantFinished("b") == .none)
        guard case .finish(let finish) = machine.participantFinished("a") else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.report.stragglers.map(\.finished) == [true, true])
        #expect(finish.report.isComplete)
        #expect(finish.cancel.isEmpty)
    }

    @Test func aCancellationPeriodEndingAfterEverythingFinishedChangesNothing() {
        var machine = machine(.cancellingStragglers)
        _ = machine.participantFinished("lazy")
        #expect(machine.cancellationPeriodExpired() == .none)
    }

    // MARK: - Signals

    @Test func theFirstSignalRequestsShutdownWithTheConfiguredGracePeriod() {
        var machine = machine(.running)
        #expect(
            machine.signalReceived(15)
                == .beginGracePeriod(cancel: [], gracePeriod: .seconds(10), stopTimeout: .seconds(15)))
        #expect(machine.phase == .shuttingDown)
    }

    @Test func aSecondSignalEndsTheGracePeriodAndAThirdEndsTheWait() {
        var machine = machine(.running, watching: oneOfEach)
        _ = machine.signalReceived(15)
        #expect(
            machine.signalReceived(15)
                == .beginCancellationPeriod(cancel: [cancel("expires", .gracePeriodExpired)], period: .seconds(5)))
        guard case .finish(let finish) = machine.signalReceived(2) else {
            Issue.record("expected the third signal to end the wait")
            return
        }
        #expect(finish.report.reason == .signal(15))
        #expect(finish.report.signalsReceived == 3)
        #expect(finish.cancel.map(\.handle) == ["never"])
    }

    @Test func afterAProgrammaticRequestTheFirstSignalChangesNothingAndTheSecondEndsTheGracePeriod() {
        var machine = machine(.shuttingDown)
        #expect(machine.signalReceived(15) == .none)
        #expect(machine.phase == .shuttingDown)
        #expect(machine.signalReceived(15) == .beginCancellationPeriod(cancel: [], period: .seconds(5)))
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
        #expect(machine.handle(for: "new") == (phase == .finished ? nil : "new"))
    }

    @Test func aProcedureAttachingDuringTheCancellationPeriodIsAStraggler() {
        var machine = machine(.cancellingStragglers)
        _ = machine.register("late", name: "late", behavior: .whenGracePeriodExpires, handle: "late")
        _ = machine.participantFinished("late")
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
        #expect(machine.participantCount == 1)
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
        #expect(finish.cancel.isEmpty)  // already cancelled by the duplicate
    }

    @Test(arguments: MachinePhase.allCases)
    func anUnknownProcedureFinishingChangesNothing(_ phase: MachinePhase) {
        var machine = machine(phase)
        #expect(machine.participantFinished("stranger") == .none)
        #expect(machine.phase == phase.expected)
    }

    @Test func aProcedureFinishingBeforeShutdownIsForgottenAndNotReported() {
        var machine = machine(.running, watching: oneOfEach)
        #expect(machine.participantFinished("never") == .none)
        #expect(machine.participantCount == 2)
        _ = machine.requestShutdown(.requested, gracePeriod: nil)
        _ = machine.participantFinished("requested")
        guard case .finish(let finish) = machine.participantFinished("expires") else {
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
        guard case .finish(let finish) = machine.participantFinished("lazy") else {
            Issue.record("expected the machine to finish")
            return
        }
        #expect(finish.waiters == [2])
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
