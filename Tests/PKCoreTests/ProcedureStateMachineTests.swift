import PKTesting
import Testing

@testable import PKCore

/// State × event, exhaustively, for the lifecycle state machine, without threads.
///
/// Every input is applied in every reachable configuration, except the pairs that are impossible by
/// construction (the machine traps on them with `preconditionFailure`, and `Procedure` never sends them):
///
/// - `didEnqueue` in any state but `willEnqueue` (only the queue calls it, right after a successful
///   `willEnqueue`).
/// - `willExecuteObserversDidFinish` in any state but `started`, `finishing` and `finished` (it is the
///   continuation of `start`'s `runWillExecute`; a finish accepted during the phase may already have run).
/// - `beginFinishing` in any state but `started`/`executing` with an accepted finish (it follows `finish`'s
///   `beginFinishing` action or `start`/`willExecuteObserversDidFinish`'s `finish` action).
/// - `completeFinishing` in any state but `finishing` (it follows `beginFinishing`).
struct ProcedureStateMachineTests {

    typealias Machine = ProcedureStateMachine
    typealias State = ProcedureStateMachine.State

    /// A configuration of the machine, reached through legal inputs only.
    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        case initialized, initializedCancelled, initializedCancelledFinishAccepted
        case willEnqueue, willEnqueueCancelled
        case pending, pendingCancelled, pendingCancelledFinishAccepted, pendingCancelledNoAutoFinish
        case started, startedCancelled, startedFinishAccepted, startedCancelledFinishAccepted
        case startedCancelledNoAutoFinish
        case executing, executingCancelled, executingFinishAccepted, executingCancelledNoAutoFinish
        case finishing, finished, finishedCancelled

        var testDescription: String { rawValue }

        /// Whether a finish has been accepted in this configuration.
        var finishAccepted: Bool {
            switch self {
            case .initializedCancelledFinishAccepted, .pendingCancelledFinishAccepted, .startedFinishAccepted,
                .startedCancelledFinishAccepted, .executingFinishAccepted, .finishing, .finished, .finishedCancelled:
                true
            default: false
            }
        }
    }

    /// Drives a fresh machine into `setup`, checking every step on the way.
    static func machine(_ setup: Setup) -> Machine {
        var machine: Machine
        switch setup {
        case .initialized:
            machine = Machine()
        case .initializedCancelled:
            machine = Machine()
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: false))
        case .initializedCancelledFinishAccepted:
            machine = Self.machine(.initializedCancelled)
            #expect(machine.finish(errors: []) == .deferUntilStart)
        case .willEnqueue:
            machine = Machine()
            #expect(machine.willEnqueue() == .proceed)
        case .willEnqueueCancelled:
            machine = Self.machine(.willEnqueue)
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: false))
        case .pending:
            machine = Self.machine(.willEnqueue)
            machine.didEnqueue()
        case .pendingCancelled:
            machine = Self.machine(.pending)
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: true))
        case .pendingCancelledFinishAccepted:
            machine = Self.machine(.pendingCancelled)
            #expect(machine.finish(errors: []) == .deferUntilStart)
        case .pendingCancelledNoAutoFinish:
            machine = Machine(automaticFinishingDisabled: true)
            #expect(machine.willEnqueue() == .proceed)
            machine.didEnqueue()
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: true))
        case .started:
            machine = Self.machine(.pending)
            #expect(machine.start() == .runWillExecute)
        case .startedCancelled:
            machine = Self.machine(.started)
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: false))
        case .startedFinishAccepted:
            machine = Self.machine(.started)
            #expect(machine.finish(errors: []) == .beginFinishing)
        case .startedCancelledFinishAccepted:
            machine = Self.machine(.pendingCancelled)
            #expect(machine.start() == .finish)
        case .startedCancelledNoAutoFinish:
            machine = Machine(automaticFinishingDisabled: true)
            #expect(machine.willEnqueue() == .proceed)
            machine.didEnqueue()
            #expect(machine.start() == .runWillExecute)
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: false))
        case .executing:
            machine = Self.machine(.started)
            #expect(machine.willExecuteObserversDidFinish() == .execute)
        case .executingCancelled:
            machine = Self.machine(.executing)
            #expect(machine.cancel(errors: []) == .didCancel(wasPending: false))
        case .executingFinishAccepted:
            machine = Self.machine(.executing)
            #expect(machine.finish(errors: []) == .beginFinishing)
        case .executingCancelledNoAutoFinish:
            machine = Self.machine(.startedCancelledNoAutoFinish)
            #expect(machine.willExecuteObserversDidFinish() == .execute)
        case .finishing:
            machine = Self.machine(.executingFinishAccepted)
            _ = machine.beginFinishing()
        case .finished:
            machine = Self.machine(.finishing)
            _ = machine.completeFinishing()
        case .finishedCancelled:
            machine = Self.machine(.startedCancelledFinishAccepted)
            _ = machine.beginFinishing()
            _ = machine.completeFinishing()
        }
        return machine
    }

    /// The state each setup is in.
    static func state(of setup: Setup) -> State {
        switch setup {
        case .initialized, .initializedCancelled, .initializedCancelledFinishAccepted: .initialized
        case .willEnqueue, .willEnqueueCancelled: .willEnqueue
        case .pending, .pendingCancelled, .pendingCancelledFinishAccepted, .pendingCancelledNoAutoFinish: .pending
        case .started, .startedCancelled, .startedFinishAccepted, .startedCancelledFinishAccepted,
            .startedCancelledNoAutoFinish:
            .started
        case .executing, .executingCancelled, .executingFinishAccepted, .executingCancelledNoAutoFinish: .executing
        case .finishing: .finishing
        case .finished, .finishedCancelled: .finished
        }
    }

    static func isCancelled(_ setup: Setup) -> Bool {
        switch setup {
        case .initializedCancelled, .initializedCancelledFinishAccepted, .willEnqueueCancelled, .pendingCancelled,
            .pendingCancelledFinishAccepted, .pendingCancelledNoAutoFinish, .startedCancelled,
            .startedCancelledFinishAccepted, .startedCancelledNoAutoFinish, .executingCancelled,
            .executingCancelledNoAutoFinish, .finishedCancelled:
            true
        default: false
        }
    }

    @Test(arguments: Setup.allCases)
    func setupsReachTheirStates(_ setup: Setup) {
        let machine = Self.machine(setup)
        #expect(machine.state == Self.state(of: setup))
        #expect(machine.isCancelled == Self.isCancelled(setup))
        #expect(machine.isFinishAccepted == setup.finishAccepted)
    }

    // MARK: - willEnqueue

    @Test(arguments: Setup.allCases)
    func willEnqueue(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        let action = machine.willEnqueue()
        if before == .initialized {
            #expect(action == .proceed)
            #expect(machine.state == .willEnqueue)
        } else {
            #expect(action == .rejectAlreadyEnqueued(before))
            #expect(machine.state == before)
        }
        #expect(machine.isCancelled == Self.isCancelled(setup))
    }

    // MARK: - didEnqueue

    @Test(arguments: [Setup.willEnqueue, .willEnqueueCancelled])
    func didEnqueueMovesToPending(_ setup: Setup) {
        var machine = Self.machine(setup)
        machine.didEnqueue()
        #expect(machine.state == .pending)
        #expect(machine.isCancelled == Self.isCancelled(setup))
    }

    // MARK: - start

    @Test(arguments: Setup.allCases)
    func start(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        let action = machine.start()
        switch setup {
        case .initialized, .initializedCancelled, .initializedCancelledFinishAccepted, .willEnqueue,
            .willEnqueueCancelled:
            #expect(action == .notEnqueued)
            #expect(machine.state == before)
        case .pending:
            #expect(action == .runWillExecute)
            #expect(machine.state == .started)
            #expect(!machine.isFinishAccepted)
        case .pendingCancelled:
            #expect(action == .finish)
            #expect(machine.state == .started)
            #expect(machine.isFinishAccepted)
        case .pendingCancelledFinishAccepted:
            #expect(action == .finish)
            #expect(machine.state == .started)
        case .pendingCancelledNoAutoFinish:
            #expect(action == .runWillExecute)
            #expect(machine.state == .started)
            #expect(!machine.isFinishAccepted)
        case .started, .startedCancelled, .startedFinishAccepted, .startedCancelledFinishAccepted,
            .startedCancelledNoAutoFinish, .executing, .executingCancelled, .executingFinishAccepted,
            .executingCancelledNoAutoFinish, .finishing, .finished, .finishedCancelled:
            #expect(action == .ignore(before))
            #expect(machine.state == before)
        }
    }

    // MARK: - adoptWithoutQueue

    @Test(arguments: Setup.allCases)
    func adoptWithoutQueue(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        let adopted = machine.adoptWithoutQueue()
        if before == .initialized {
            #expect(adopted)
            #expect(machine.state == .pending)
        } else {
            #expect(!adopted)
            #expect(machine.state == before)
        }
        #expect(machine.isCancelled == Self.isCancelled(setup))
    }

    // MARK: - willExecuteObserversDidFinish

    @Test(arguments: [
        Setup.started, .startedCancelled, .startedFinishAccepted, .startedCancelledFinishAccepted,
        .startedCancelledNoAutoFinish, .finishing, .finished, .finishedCancelled,
    ])
    func willExecuteObserversDidFinish(_ setup: Setup) {
        var machine = Self.machine(setup)
        let action = machine.willExecuteObserversDidFinish()
        switch setup {
        case .started, .startedCancelledNoAutoFinish:
            #expect(action == .execute)
            #expect(machine.state == .executing)
        case .startedCancelled:
            #expect(action == .finish)
            #expect(machine.state == .started)
            #expect(machine.isFinishAccepted)
        case .startedFinishAccepted, .startedCancelledFinishAccepted:
            #expect(action == ExecuteAction.none)
            #expect(machine.state == .started)
        case .finishing, .finished, .finishedCancelled:
            // The finish accepted during the WillExecute phase was processed before the phase's continuation.
            let before = Self.machine(setup).state
            #expect(action == ExecuteAction.none)
            #expect(machine.state == before)
        default:
            Issue.record("not a started or finishing setup: \(setup)")
        }
    }
    typealias ExecuteAction = ProcedureStateMachine.ExecuteAction

    // MARK: - finish

    @Test(arguments: Setup.allCases)
    func finish(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        let errorsBefore = machine.errors.count
        let action = machine.finish(errors: [TestError()])
        if setup.finishAccepted {
            #expect(action == .ignoreDuplicate(before))
            #expect(machine.errors.count == errorsBefore)
        } else {
            switch before {
            case .initialized, .willEnqueue, .pending:
                if Self.isCancelled(setup) {
                    #expect(action == .deferUntilStart)
                    #expect(machine.isFinishAccepted)
                    #expect(machine.errors.count == errorsBefore + 1)
                } else {
                    #expect(action == .rejectNotStarted(before))
                    #expect(!machine.isFinishAccepted)
                    #expect(machine.errors.count == errorsBefore)
                }
            case .started, .executing:
                #expect(action == .beginFinishing)
                #expect(machine.isFinishAccepted)
                #expect(machine.errors.count == errorsBefore + 1)
            case .finishing, .finished:
                Issue.record("finishing/finished always have an accepted finish")
            }
        }
        #expect(machine.state == before)
    }

    // MARK: - beginFinishing

    @Test(arguments: [
        Setup.startedFinishAccepted, .startedCancelledFinishAccepted, .executingFinishAccepted,
    ])
    func beginFinishingMovesToFinishing(_ setup: Setup) {
        var machine = Self.machine(setup)
        let errors = machine.beginFinishing()
        #expect(machine.state == .finishing)
        #expect(errors.count == machine.errors.count)
    }

    // MARK: - completeFinishing

    @Test func completeFinishingMovesToFinished() {
        var machine = Self.machine(.executing)
        let error = TestError()
        #expect(machine.finish(errors: [error]) == .beginFinishing)
        #expect(machine.beginFinishing().count == 1)
        let errors = machine.completeFinishing()
        #expect(machine.state == .finished)
        #expect(errors.count == 1)
        #expect(errors.first as? TestError == error)
    }

    // MARK: - cancel

    @Test(arguments: Setup.allCases)
    func cancel(_ setup: Setup) {
        var machine = Self.machine(setup)
        let before = machine.state
        let errorsBefore = machine.errors.count
        let action = machine.cancel(errors: [TestError()])
        if Self.isCancelled(setup) || setup.finishAccepted {
            #expect(action == .ignore)
            #expect(machine.errors.count == errorsBefore)
            #expect(machine.isCancelled == Self.isCancelled(setup))
        } else {
            #expect(action == .didCancel(wasPending: before == .pending))
            #expect(machine.isCancelled)
            #expect(machine.errors.count == errorsBefore + 1)
        }
        #expect(machine.state == before)
    }

    // MARK: - Error accumulation

    @Test func cancelErrorsComeBeforeFinishErrors() {
        var machine = Self.machine(.executing)
        let cancelError = TestError()
        let finishError = TestError()
        #expect(machine.cancel(errors: [cancelError]) == .didCancel(wasPending: false))
        #expect(machine.finish(errors: [finishError]) == .beginFinishing)
        let errors = machine.beginFinishing()
        #expect(errors.compactMap { $0 as? TestError } == [cancelError, finishError])
    }

    @Test func fullLifecycleVisitsEveryStateInOrder() {
        var machine = Machine()
        var visited: [State] = [machine.state]
        _ = machine.willEnqueue()
        visited.append(machine.state)
        machine.didEnqueue()
        visited.append(machine.state)
        _ = machine.start()
        visited.append(machine.state)
        _ = machine.willExecuteObserversDidFinish()
        visited.append(machine.state)
        _ = machine.finish(errors: [])
        _ = machine.beginFinishing()
        visited.append(machine.state)
        _ = machine.completeFinishing()
        visited.append(machine.state)
        #expect(visited == [.initialized, .willEnqueue, .pending, .started, .executing, .finishing, .finished])
        #expect(visited == visited.sorted())
    }
}
