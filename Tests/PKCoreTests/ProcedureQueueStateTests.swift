import Foundation
import Testing

@testable import PKCore

/// State × event for the queue's suspend/resume and lock-grant events, without threads: every event is applied in
/// every configuration below, and the action and the state afterwards are checked.
struct ProcedureQueueStateTests {

    typealias State = ProcedureQueueState

    /// A configuration of the queue's bookkeeping.
    enum Setup: String, CaseIterable, CustomTestStringConvertible {
        /// Running, nothing to do.
        case idle
        /// Running, one ready procedure, no free slot (serial queue, one running).
        case readyNoSlot
        /// Running, one ready procedure and a free slot, a loop already waiting to start.
        case readyLoopPending
        /// Running, one granted procedure waiting for a loop (it holds its slot), a loop waiting to start.
        case grantedLoopPending
        /// Running, one procedure waiting for a dependency, nothing else: stalled.
        case stalled
        /// Running, stalled, and a cycle check already scheduled.
        case stalledCheckScheduled
        /// Suspended, nothing to do.
        case suspended
        /// Suspended, one evaluation deferred until resumed.
        case suspendedDeferred
        /// Suspended, one ready procedure and a free slot.
        case suspendedReady
        /// Suspended, one procedure waiting for a dependency.
        case suspendedWaiting
        /// Suspended, one evaluation deferred, a loop already waiting to start.
        case suspendedDeferredLoopPending

        var testDescription: String { rawValue }

        var isSuspended: Bool { rawValue.hasPrefix("suspended") }

        /// The bookkeeping in this configuration, and the procedures it holds (to keep them alive).
        func make() -> (State, [Procedure]) {
            var state = State()
            var held: [Procedure] = []
            func procedure() -> Procedure {
                let procedure = BlockProcedure {}
                held.append(procedure)
                return procedure
            }
            switch self {
            case .idle:
                break
            case .readyNoSlot:
                state.maxConcurrentOperationCount = 1
                state.running = 1
                state.ready.append(.procedure(procedure()), priority: .normal)
            case .readyLoopPending:
                state.ready.append(.procedure(procedure()), priority: .normal)
                state.pendingLoops = 1
            case .grantedLoopPending:
                state.granted.append(GrantedProcedure(procedure: procedure(), priority: .normal))
                state.running = 1
                state.pendingLoops = 1
            case .stalled:
                state.waiting = 1
            case .stalledCheckScheduled:
                state.waiting = 1
                state.stallCheckScheduled = true
            case .suspended:
                state.isSuspended = true
            case .suspendedDeferred:
                state.isSuspended = true
                state.deferredEvaluations = [procedure()]
            case .suspendedReady:
                state.isSuspended = true
                state.ready.append(.procedure(procedure()), priority: .normal)
            case .suspendedWaiting:
                state.isSuspended = true
                state.waiting = 1
            case .suspendedDeferredLoopPending:
                state.isSuspended = true
                state.deferredEvaluations = [procedure()]
                state.pendingLoops = 1
            }
            return (state, held)
        }
    }

    static let defaultTarget = WorkerLoop.Target.lane(QualityOfService.default.dispatchQoS)

    // MARK: - suspend

    @Test(arguments: Setup.allCases)
    func suspendTakesGrantedProceduresBackToTheReadyList(_ setup: Setup) {
        var (state, held) = setup.make()
        let running = state.running
        let granted = setup == .grantedLoopPending ? held : []
        let action = state.suspend()
        #expect(state.isSuspended)
        #expect(state.granted.isEmpty)
        switch setup {
        case .grantedLoopPending:
            #expect(action == .giveBackLocks(granted))
            #expect(state.running == running - 1)
            #expect(state.ready.popFirst().map { $0.identity } == ObjectIdentifier(granted[0]))
        case .idle, .readyNoSlot, .readyLoopPending, .stalled, .stalledCheckScheduled, .suspended, .suspendedDeferred,
            .suspendedReady, .suspendedWaiting, .suspendedDeferredLoopPending:
            #expect(action == .none)
            #expect(state.running == running)
        }
        // A suspended queue reserves no loop for ready or granted work, and is never stalled.
        #expect(!state.isStalled)
        #expect(state.reserveLoop() == nil)
    }

    // MARK: - resume

    @Test(arguments: Setup.allCases)
    func resumeQueuesDeferredEvaluationsAndReservesALoopAndACycleCheck(_ setup: Setup) {
        var (state, held) = setup.make()
        let pendingLoops = state.pendingLoops
        let action = state.resume()
        #expect(!state.isSuspended)
        #expect(state.deferredEvaluations.isEmpty)
        let expectsLoop: Bool
        let expectsStallCheck: Bool
        switch setup {
        case .suspendedDeferred:
            #expect(state.evaluations.popFirst() === held[0])
            expectsLoop = true
            expectsStallCheck = false
        case .suspendedDeferredLoopPending:
            #expect(state.evaluations.popFirst() === held[0])
            expectsLoop = false
            expectsStallCheck = false
        case .suspendedReady:
            expectsLoop = true
            expectsStallCheck = false
        case .stalled, .suspendedWaiting:
            expectsLoop = false
            expectsStallCheck = true
        case .idle, .readyNoSlot, .readyLoopPending, .grantedLoopPending, .stalledCheckScheduled, .suspended:
            expectsLoop = false
            expectsStallCheck = false
        }
        #expect(action.spawnLoopOn == (expectsLoop ? Self.defaultTarget : nil))
        #expect(state.pendingLoops == pendingLoops + (expectsLoop ? 1 : 0))
        #expect(action.scheduleStallCheck == expectsStallCheck)
        if expectsStallCheck { #expect(state.stallCheckScheduled) }
    }

    @Test func resumeOnAnUnderlyingQueueDispatchesThere() {
        var (state, _) = Setup.suspendedReady.make()
        let underlying = DispatchQueue(label: "ProcedureQueueStateTests")
        state.underlyingQueue = underlying
        #expect(state.resume().spawnLoopOn == .underlying(underlying))
    }

    // MARK: - locksGranted

    @Test(arguments: Setup.allCases, [false, true])
    func locksGrantedQueuesTheProcedureOrGivesItsSlotBackWhenSuspended(_ setup: Setup, loopWillPick: Bool) {
        var (state, _) = setup.make()
        let procedure = BlockProcedure {}
        // The procedure holds a slot (it was counted as running when a loop took it).
        state.running += 1
        let running = state.running
        let pendingLoops = state.pendingLoops
        let granted = state.granted.count
        let action = state.locksGranted(
            GrantedProcedure(procedure: procedure, priority: .normal), loopWillPick: loopWillPick)
        if setup.isSuspended {
            #expect(action == .giveBackLocks)
            #expect(state.running == running - 1)
            #expect(state.granted.count == granted)
            #expect(state.pendingLoops == pendingLoops)
            var readyProcedures: [ObjectIdentifier] = []
            while let member = state.ready.popFirst() { readyProcedures.append(member.identity) }
            #expect(readyProcedures.last == ObjectIdentifier(procedure))
            return
        }
        #expect(state.running == running)
        #expect(state.granted.count == granted + 1)
        switch setup {
        case .idle, .readyNoSlot, .stalled, .stalledCheckScheduled:
            // No loop is waiting to start: one is reserved, unless the loop finishing on this thread takes it.
            #expect(action == (loopWillPick ? .none : .spawnLoop(Self.defaultTarget)))
            #expect(state.pendingLoops == pendingLoops + (loopWillPick ? 0 : 1))
        case .readyLoopPending, .grantedLoopPending:
            #expect(action == .none)
            #expect(state.pendingLoops == pendingLoops)
        case .suspended, .suspendedDeferred, .suspendedReady, .suspendedWaiting, .suspendedDeferredLoopPending:
            Issue.record("handled above")
        }
    }

    // MARK: - reserveLoop

    @Test(arguments: Setup.allCases)
    func reserveLoopReservesAtMostOneWaitingLoop(_ setup: Setup) {
        var (state, _) = setup.make()
        // No configuration needs another loop: one is pending, or deferred evaluations and ready work wait for the
        // resume or a slot.
        #expect(state.reserveLoop() == nil)
        state.evaluations.append(BlockProcedure {})
        let reserved = state.pendingLoops == 0
        #expect((state.reserveLoop() != nil) == reserved)
        #expect(state.reserveLoop() == nil)
    }
}
