import Foundation

/// Everything mutable about a procedure, guarded by the procedure's one mutex.
struct ProcedureStorage {
    // PERF(W9): every procedure carries this, so bytes count: 249 bytes, plus 16 for the observer list's
    // instrument (W13). Each state machine keeps its data in its states, so no field sits beside a machine for
    // some states only; a one-byte field added later fits the tail of `machine` (17 bytes) if declared right
    // after it.
    var machine: ProcedureStateMachine
    var loop = EventContextState()
    var observers = ObserverList()
    /// The direct dependencies, in the order they were added (most procedures have at most one).
    var dependencies = SmallList<Operation>()
    var conditions: [Condition] = []
    /// From enqueued to ready: dependencies, the evaluation under way (so that cancelling can abandon it), the
    /// mutually exclusive categories its conditions named and its request for them.
    var readiness = ProcedureReadinessMachine()
    /// The procedure that produced this one (through `produce(operation:)`), held until this one finishes.
    var producer: Procedure?
    /// Waiters registered on this procedure; notified once when it finishes, then dropped.
    var dependents = SmallList<any DependencyWaiter>()
    /// The queue, from enqueue until finished. Not retained: a queue keeps itself alive while it has outstanding
    /// operations, and a procedure is outstanding on its queue for as long as this is set (see ``QueueKeepAlive``).
    /// PERF(W1, W3): callers reach the queue through `_withUnsafeGuaranteedRef`, which that invariant makes safe,
    /// instead of retaining and releasing the one reference count every worker would share.
    var queueRef: Unmanaged<ProcedureQueue>?

    /// The queue, from enqueue until finished (a strong reference for the caller to keep).
    var queue: ProcedureQueue? { queueRef?.takeUnretainedValue() }
    var name: String?
    /// Per-procedure log settings (few procedures have any).
    var logSettings: ProcedureLogSettings? {
        get { logSettingsBox?.value }
        set { logSettingsBox = newValue.map(LogSettingsBox.init) }
    }
    /// The settings are large (writer and formatter existentials), so they live in a box: one pointer here.
    private var logSettingsBox: LogSettingsBox?
    /// Async waiters; closed once the procedure has completely finished (after DidFinish observers).
    var finishWaiters = FinishWaiters()
    /// Where the "will" phase being delivered right now stands (see ``WillPhaseMachine``).
    var willPhase = WillPhaseMachine()
    /// The procedure's progress, once someone reported, read or watched it (see ``ProgressNode``); kept after it
    /// finishes, so that its progress still reads as finished.
    var progress: ProgressNode?

    init(automaticFinishingDisabled: Bool) {
        machine = ProcedureStateMachine(automaticFinishingDisabled: automaticFinishingDisabled)
    }

    /// Starting with a slot, not cancelled, with categories to ask for: the request to make (its ticket is now
    /// this procedure's), with the producers it must not wait for. Takes each producer's lock in turn (lock order:
    /// procedure, then its producer chain).
    mutating func makeExclusivityRequest() -> ExclusivityRequest? {
        guard machine.state == .pending, !machine.isCancelled,
            let (ticket, categories) = readiness.requestLocks(ticket: { ExclusivityManager.shared.makeTicket() })
        else { return nil }
        var ancestors = Set<ObjectIdentifier>()
        var current = producer
        while let procedure = current, ancestors.count < 256 {
            ancestors.insert(ObjectIdentifier(procedure))
            current = procedure.storage.withLock { $0.producer }
        }
        return ExclusivityRequest(ticket: ticket, categories: categories, ancestors: ancestors)
    }
}

/// An immutable box for a procedure's log settings; replaced, never mutated.
final class LogSettingsBox {
    let value: ProcedureLogSettings

    init(_ value: ProcedureLogSettings) {
        self.value = value
    }
}
