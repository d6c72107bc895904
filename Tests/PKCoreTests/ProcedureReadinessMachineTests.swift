import Testing

@testable import PKCore

/// State × event, exhaustively, for the readiness state machine (enqueued → ready → holding its categories),
/// without threads.
///
/// Impossible by construction (the machine traps, and `Procedure` never sends them): `enqueuedReadyAtOnce` and
/// `enqueued` outside `notEnqueued` (the lifecycle machine lets a procedure be enqueued once), and
/// `dependencyAdded` in `notEnqueued` (before enqueueing a dependency is only stored).
struct ProcedureReadinessMachineTests {

    typealias Machine = ProcedureReadinessMachine

    static let categories: Set<String> = ["a", "b"]
    /// The ticket the setups ask for their categories under.
    static let ticket: UInt64 = 7

    /// A configuration of the machine, reached through legal events only.
    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        case notEnqueued
        case waitingForTwo, waitingForOne
        case evaluationScheduled, evaluating
        case conditionsFailed, conditionsPassedWithCategories
        case ready, readyNeedingLocks, awaitingLocks, holdingLocks

        var testDescription: String { rawValue }
    }

    static func evaluator() -> ConditionEvaluator {
        ConditionEvaluator(uniqueConditions: [], mode: .all)
    }

    /// Drives a fresh machine into `setup`, checking every step on the way.
    static func machine(_ setup: Setup) -> Machine {
        var machine = Machine()
        switch setup {
        case .notEnqueued:
            break
        case .waitingForTwo:
            machine.enqueued(dependencies: 1)
        case .waitingForOne:
            machine = Self.machine(.waitingForTwo)
            #expect(machine.dependenciesFinished(count: 1, isCancelled: false, hasConditions: true) == .none)
        case .evaluationScheduled:
            machine = Self.machine(.waitingForOne)
            #expect(
                machine.dependenciesFinished(count: 1, isCancelled: false, hasConditions: true) == .evaluateConditions)
        case .evaluating:
            machine = Self.machine(.evaluationScheduled)
            let accepted = machine.evaluationBegan(evaluator())
            #expect(accepted)
        case .conditionsFailed:
            machine = Self.machine(.evaluating)
            let accepted = machine.conditionsDecided(categories: [])
            #expect(accepted)
        case .conditionsPassedWithCategories:
            machine = Self.machine(.evaluating)
            let accepted = machine.conditionsDecided(categories: categories)
            #expect(accepted)
        case .ready:
            machine.enqueuedReadyAtOnce()
        case .readyNeedingLocks:
            machine = Self.machine(.conditionsPassedWithCategories)
            let accepted = machine.conditionsApplied()
            #expect(accepted)
        case .awaitingLocks:
            machine = Self.machine(.readyNeedingLocks)
            #expect(machine.requestLocks(ticket: { ticket })! == (ticket, categories))
        case .holdingLocks:
            machine = Self.machine(.awaitingLocks)
            let accepted = machine.locksGranted(ticket)
            #expect(accepted)
        }
        #expect(describe(machine.state) == expectedDescription(setup))
        return machine
    }

    static func expectedDescription(_ setup: Setup) -> String {
        switch setup {
        case .notEnqueued: "notEnqueued"
        case .waitingForTwo: "waiting(2)"
        case .waitingForOne: "waiting(1)"
        case .evaluationScheduled: "evaluating(nil)"
        case .evaluating: "evaluating(evaluator)"
        case .conditionsFailed: "conditionsDecided([])"
        case .conditionsPassedWithCategories: "conditionsDecided([a, b])"
        case .ready: "ready"
        case .readyNeedingLocks: "readyNeedingLocks([a, b])"
        case .awaitingLocks: "awaitingLocks(7, [a, b])"
        case .holdingLocks: "holdingLocks(7, [a, b])"
        }
    }

    static func describe(_ categories: Set<String>) -> String { "[\(categories.sorted().joined(separator: ", "))]" }

    static func describe(_ state: Machine.State) -> String {
        switch state {
        case .notEnqueued: "notEnqueued"
        case .waiting(let unfinished): "waiting(\(unfinished))"
        case .evaluating(let evaluator): evaluator == nil ? "evaluating(nil)" : "evaluating(evaluator)"
        case .conditionsDecided(let categories): "conditionsDecided(\(describe(categories)))"
        case .ready: "ready"
        case .readyNeedingLocks(let categories): "readyNeedingLocks(\(describe(categories)))"
        case .awaitingLocks(let ticket, let categories): "awaitingLocks(\(ticket), \(describe(categories)))"
        case .holdingLocks(let ticket, let categories): "holdingLocks(\(ticket), \(describe(categories)))"
        }
    }

    // MARK: - Queries

    @Test(arguments: Setup.allCases)
    func queries(_ setup: Setup) {
        let machine = Self.machine(setup)
        let ready: Set<Setup> = [.ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks]
        #expect(machine.isReady == ready.contains(setup))
        #expect(machine.isWaitingForDependencies == [.waitingForTwo, .waitingForOne].contains(setup))
        #expect(machine.isEvaluatingConditions == [.evaluationScheduled, .evaluating].contains(setup))
        #expect(machine.holdsLockRequest(Self.ticket) == [.awaitingLocks, .holdingLocks].contains(setup))
        #expect(machine.holdsLockRequest(Self.ticket + 1) == false)
    }

    // MARK: - Enqueueing and dependencies

    @Test func enqueuedReadyAtOnceFromNotEnqueuedIsReady() {
        var machine = Self.machine(.notEnqueued)
        machine.enqueuedReadyAtOnce()
        #expect(Self.describe(machine.state) == "ready")
    }

    @Test(arguments: [0, 1, 5])
    func enqueuedWaitsForItsDependenciesAndTheEnqueue(_ dependencies: Int) {
        var machine = Self.machine(.notEnqueued)
        machine.enqueued(dependencies: dependencies)
        #expect(Self.describe(machine.state) == "waiting(\(dependencies + 1))")
    }

    @Test(arguments: Setup.allCases.filter { $0 != .notEnqueued })
    func dependencyAdded(_ setup: Setup) {
        var machine = Self.machine(setup)
        let action = machine.dependencyAdded()
        switch setup {
        case .waitingForTwo:
            #expect(action == .register)
            #expect(Self.describe(machine.state) == "waiting(3)")
        case .waitingForOne:
            #expect(action == .register)
            #expect(Self.describe(machine.state) == "waiting(2)")
        default:
            #expect(action == .tooLate)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    /// `dependenciesFinished` with every combination of its flags, counting down one or the rest.
    @Test(arguments: Setup.allCases, [false, true])
    func dependenciesFinished(_ setup: Setup, isCancelled: Bool) {
        for hasConditions in [false, true] {
            for count in [1, 2] {
                var machine = Self.machine(setup)
                let action = machine.dependenciesFinished(
                    count: count, isCancelled: isCancelled, hasConditions: hasConditions)
                let state = Self.describe(machine.state)
                let unfinished: Int? =
                    switch setup {
                    case .waitingForTwo: 2
                    case .waitingForOne: 1
                    default: nil
                    }
                guard let unfinished else {
                    // Not waiting: nothing changes.
                    #expect(action == .none)
                    #expect(state == Self.expectedDescription(setup))
                    continue
                }
                let remaining = unfinished - count
                if remaining != 0 && !isCancelled {
                    #expect(action == .none)
                    #expect(state == "waiting(\(remaining))")
                } else if isCancelled || !hasConditions {
                    #expect(action == .ready)
                    #expect(state == "ready")
                } else {
                    #expect(action == .evaluateConditions)
                    #expect(state == "evaluating(nil)")
                }
            }
        }
    }

    @Test(arguments: Setup.allCases)
    func cancelled(_ setup: Setup) {
        var machine = Self.machine(setup)
        let evaluatorBefore: ConditionEvaluator? =
            if case .evaluating(let evaluator) = machine.state { evaluator } else { nil }
        let action = machine.cancelled()
        let state = Self.describe(machine.state)
        switch setup {
        case .waitingForTwo, .waitingForOne:
            guard case .ready = action else {
                Issue.record("\(action)")
                return
            }
            #expect(state == "ready")
        case .evaluationScheduled, .evaluating, .conditionsFailed, .conditionsPassedWithCategories:
            guard case .abandonEvaluation(let evaluator) = action else {
                Issue.record("\(action)")
                return
            }
            #expect(evaluator === evaluatorBefore)
            #expect((evaluator != nil) == (setup == .evaluating))
            #expect(state == "ready")
        case .awaitingLocks:
            guard case .withdrawLocks(let ticket) = action else {
                Issue.record("\(action)")
                return
            }
            #expect(ticket == Self.ticket)
            #expect(state == "ready")
        case .notEnqueued, .ready, .readyNeedingLocks, .holdingLocks:
            guard case .none = action else {
                Issue.record("\(action)")
                return
            }
            #expect(state == Self.expectedDescription(setup))
        }
    }

    // MARK: - Conditions

    @Test(arguments: Setup.allCases)
    func evaluationBegan(_ setup: Setup) {
        var machine = Self.machine(setup)
        let evaluator = Self.evaluator()
        let began = machine.evaluationBegan(evaluator)
        switch setup {
        case .evaluationScheduled, .evaluating:
            #expect(began)
            guard case .evaluating(let current) = machine.state else {
                Issue.record("\(machine.state)")
                return
            }
            #expect(current === evaluator)
        default:
            #expect(!began)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    @Test(arguments: Setup.allCases, [Set<String>(), ["x"]])
    func conditionsDecided(_ setup: Setup, categories: Set<String>) {
        var machine = Self.machine(setup)
        let decided = machine.conditionsDecided(categories: categories)
        switch setup {
        case .evaluationScheduled, .evaluating:
            #expect(decided)
            #expect(Self.describe(machine.state) == "conditionsDecided(\(Self.describe(categories)))")
        default:
            // Abandoned: the procedure was cancelled (and made ready) meanwhile.
            #expect(!decided)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    @Test(arguments: Setup.allCases)
    func conditionsApplied(_ setup: Setup) {
        var machine = Self.machine(setup)
        let becameReady = machine.conditionsApplied()
        switch setup {
        case .conditionsFailed:
            #expect(becameReady)
            #expect(Self.describe(machine.state) == "ready")
        case .conditionsPassedWithCategories:
            #expect(becameReady)
            #expect(Self.describe(machine.state) == "readyNeedingLocks([a, b])")
        default:
            #expect(!becameReady)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    // MARK: - Mutually exclusive categories

    @Test(arguments: Setup.allCases)
    func requestLocks(_ setup: Setup) {
        var machine = Self.machine(setup)
        var ticketsMade = 0
        let request = machine.requestLocks(ticket: {
            ticketsMade += 1
            return 9
        })
        if setup == .readyNeedingLocks {
            #expect(request! == (9, Self.categories))
            #expect(ticketsMade == 1)
            #expect(Self.describe(machine.state) == "awaitingLocks(9, [a, b])")
        } else {
            // Nothing to ask for: no ticket is made.
            #expect(request == nil)
            #expect(ticketsMade == 0)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    @Test(arguments: Setup.allCases)
    func locksGranted(_ setup: Setup) {
        var machine = Self.machine(setup)
        #expect(machine.locksGranted(Self.ticket + 1) == false)
        #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        let granted = machine.locksGranted(Self.ticket)
        switch setup {
        case .awaitingLocks, .holdingLocks:
            #expect(granted)
            #expect(Self.describe(machine.state) == "holdingLocks(7, [a, b])")
        default:
            // Withdrawn meanwhile: the owner gives the grant back.
            #expect(!granted)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    @Test(arguments: Setup.allCases)
    func lockRequestAbandoned(_ setup: Setup) {
        var machine = Self.machine(setup)
        machine.lockRequestAbandoned(Self.ticket + 1)
        #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        machine.lockRequestAbandoned(Self.ticket)
        let expected = [.awaitingLocks, .holdingLocks].contains(setup) ? "ready" : Self.expectedDescription(setup)
        #expect(Self.describe(machine.state) == expected)
    }

    @Test(arguments: Setup.allCases)
    func yieldLocksForSuspension(_ setup: Setup) {
        var machine = Self.machine(setup)
        let ticket = machine.yieldLocksForSuspension()
        if setup == .holdingLocks {
            #expect(ticket == Self.ticket)
            #expect(Self.describe(machine.state) == "readyNeedingLocks([a, b])")
            // Asked for again, under a new ticket, when it next starts.
            #expect(machine.requestLocks(ticket: { 8 })! == (8, Self.categories))
        } else {
            #expect(ticket == nil)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    @Test(arguments: Setup.allCases)
    func finished(_ setup: Setup) {
        var machine = Self.machine(setup)
        let ticket = machine.finished()
        switch setup {
        case .awaitingLocks, .holdingLocks:
            #expect(ticket == Self.ticket)
            #expect(Self.describe(machine.state) == "ready")
        case .readyNeedingLocks:
            #expect(ticket == nil)
            #expect(Self.describe(machine.state) == "ready")
        default:
            #expect(ticket == nil)
            #expect(Self.describe(machine.state) == Self.expectedDescription(setup))
        }
    }

    /// The procedure's storage carries this machine: keep it small (see the W9 benchmark).
    @Test func staysSmall() {
        #expect(MemoryLayout<Machine>.size <= 17)
    }
}
