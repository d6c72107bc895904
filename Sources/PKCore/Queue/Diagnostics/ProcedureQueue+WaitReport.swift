import Foundation

extension ProcedureQueue {

    /// A snapshot of every unfinished operation on the queue and what each is waiting for: its unfinished
    /// dependencies (and where they stand), its conditions, its mutually exclusive categories, a free slot, or
    /// nothing (it is running). As data, and as a readable description (`print(queue.waitReport())`).
    ///
    /// It takes the queue's lock once to list the members, then each member's own lock in turn, never two at once;
    /// user code (a condition's or an operation's name) is read after the locks. Use it to find out why work is not
    /// progressing: it costs nothing until it is called.
    public func waitReport() -> WaitReport {
        let (members, suspended, width) = state.withLock {
            ($0.members, $0.isSuspended, $0.maxConcurrentOperationCount)
        }
        let entries = members.map { member -> WaitingProcedure in
            switch member {
            case .procedure(let procedure): procedure.waitingEntry()
            case .operation(let node): Self.waitingEntry(for: node.operation)
            }
        }
        return WaitReport(
            queueName: name, isSuspended: suspended, maxConcurrentOperationCount: width, entries: entries)
    }

    private static func waitingEntry(for operation: Operation) -> WaitingProcedure {
        let reason: WaitingProcedure.Reason
        if operation.isExecuting {
            reason = .executing
        } else {
            let unfinished = operation.dependencies.filter { !$0.isFinished }
            reason = unfinished.isEmpty ? .slot : .dependencies(unfinished.map(WaitedDependency.init(of:)))
        }
        return WaitingProcedure(
            name: operation.name ?? String(describing: type(of: operation)), identity: nil, reason: reason)
    }
}

extension Procedure {
    /// This procedure's entry in its queue's ``WaitReport``.
    fileprivate func waitingEntry() -> WaitingProcedure {
        enum Read {
            case dependencies([Operation])
            case conditions([Condition])
            case categories(Set<String>)
            case slot, starting, executing
        }
        let read = storage.withLock { state -> Read in
            switch state.machine.state {
            case .initialized, .willEnqueue, .pending:
                break
            case .started:
                return .starting
            case .executing, .finishing, .finished:
                return .executing
            }
            switch state.readiness.state {
            case .notEnqueued, .waiting:
                return .dependencies(state.dependencies.array)
            case .evaluating, .conditionsDecided:
                return .conditions(state.conditions)
            case .ready, .readyNeedingLocks:
                return .slot
            case .awaitingLocks(_, let categories):
                return .categories(categories)
            case .holdingLocks:
                return .starting
            }
        }
        let reason: WaitingProcedure.Reason
        switch read {
        case .dependencies(let dependencies):
            reason = .dependencies(dependencies.filter { !$0.isFinished }.map(WaitedDependency.init(of:)))
        case .conditions(let conditions): reason = .conditions(conditions.map(\.conditionName))
        case .categories(let categories): reason = .mutualExclusion(categories.sorted())
        case .slot: reason = .slot
        case .starting: reason = .starting
        case .executing: reason = .executing
        }
        return WaitingProcedure(name: procedureName, identity: identity, reason: reason)
    }

    /// `true` while the procedure has never been handed to a queue.
    final var isOnNoQueue: Bool { storage.withLock { $0.machine.state == .initialized } }
}

extension WaitedDependency {
    /// Where `operation` stands now.
    init(of operation: Operation) {
        guard let procedure = operation as? Procedure else {
            let name = operation.name ?? String(describing: type(of: operation))
            self.init(name: name, standing: operation.isExecuting ? .operationExecuting : .operationNotStarted)
            return
        }
        let (state, queue) = procedure.storage.withLock { ($0.machine.state, $0.queue) }
        let standing: Standing
        switch state {
        case .initialized: standing = .notEnqueued
        case .willEnqueue, .pending: standing = .waiting(queue: queue?.name)
        case .started, .executing, .finishing, .finished: standing = .executing
        }
        self.init(name: procedure.procedureName, standing: standing)
    }
}
