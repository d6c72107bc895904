import Foundation

/// Work waiting in a procedure's serial event context.
enum EventContextStep {
    /// Attach an observer and tell it so.
    case attach(AnyProcedureObserver)
    /// The queue started the procedure.
    case start
    /// The WillExecute phase is over (every observer returned and the token was released).
    case willExecuteDone
    /// A cancel was accepted with these errors.
    case didCancel([any Error])
    /// An accepted finish: run the WillFinish phase.
    case beginFinishing
    /// The WillFinish phase is over.
    case willFinishDone
    /// Add an operation to `target` after the WillAdd phase, holding `before` until it is added.
    case produce(Operation, PendingEvent?, ProducedOperationTarget)
    /// The WillAdd phase of a produce is over: add the operation.
    case addProduced(Operation, PendingEvent?, ProducedOperationTarget)
    /// Run `execute()` now: the hop onto the queue's `underlyingQueue` has happened.
    case executeNow
    /// Run a block serialized with the procedure's events (used by `synchronize`).
    case run(@Sendable () -> Void)
}

extension EventContextStep {
    /// Whether this event can lead to `execute()` (and the WillExecute phase before it), which run only on a
    /// thread of the procedure's queue: the one starting it, its `underlyingQueue`, or a global queue at its
    /// quality of service; never on a thread that came in for another event.
    var leadsToExecute: Bool {
        switch self {
        case .start, .willExecuteDone: true
        default: false
        }
    }
}

/// Where an operation a procedure adds goes.
enum ProducedOperationTarget {
    /// The queue the procedure was on when it called `produce(operation:before:)`.
    case queue(ProcedureQueue)
    /// The procedure's own children: a ``GroupProcedure`` adding a child (its own, or one a child produced).
    case children(producedBy: Procedure?)
}

/// The run-or-enqueue state of a procedure's serial event context.
///
/// There is no thread or dispatch queue per procedure: whichever thread submits an event while nobody is
/// draining becomes the drainer and runs events until none are left; events submitted meanwhile (including from
/// inside an event, such as `finish()` inside `execute()`) wait their turn. While a pending-event token is
/// outstanding the context is blocked, and the token's release resumes it.
struct EventContextState {
    private(set) var isDraining = false
    private(set) var isBlocked = false

    /// Nobody is draining and the context is not blocked, so nothing is queued either: an event accepted now
    /// would run at once, on the accepting thread.
    var isIdle: Bool { !isDraining && !isBlocked }
    /// Whether any event waits behind the one in progress (tests wait for it).
    var hasQueuedEvents: Bool { first != nil || restHead < rest.count }
    /// The first queued event, kept inline so the common case (one event queued behind the current one, such as
    /// `finish()` inside `execute()`) allocates nothing.
    private var first: EventContextStep?
    /// Further queued events, after `first`.
    /// Popped slots are emptied at once: an event's payload (a pending-event token, say) must never be released
    /// by this list, which lives under the procedure's lock.
    private var rest: [EventContextStep?] = []
    private var restHead = 0

    /// Queues `event`, or returns `true` when the caller should become the drainer and run it now.
    mutating func accept(_ event: EventContextStep) -> Bool {
        if isDraining || isBlocked {
            enqueue(event)
            return false
        }
        isDraining = true
        return true
    }

    private mutating func enqueue(_ event: EventContextStep) {
        if first == nil && restHead == rest.count {
            first = event
        } else {
            rest.append(event)
        }
    }

    private mutating func dequeue() -> EventContextStep? {
        if let event = first {
            first = nil
            return event
        }
        guard restHead < rest.count else { return nil }
        let event = rest[restHead].take()
        restHead += 1
        if restHead == rest.count {
            rest.removeAll(keepingCapacity: false)
            restHead = 0
        }
        return event
    }

    /// The next event for the drainer, or `nil` (and draining stops) when blocked or empty.
    mutating func next() -> EventContextStep? {
        if !isBlocked, let event = dequeue() { return event }
        isDraining = false
        return nil
    }

    /// Holds every later event until ``resume(with:)``.
    mutating func block() {
        isBlocked = true
    }

    /// Stops draining and blocks the context: the drainer hands the event it just took to another thread, which
    /// resumes with it (``resumeExclusively(with:first:)``). Events accepted meanwhile are queued.
    mutating func stopForHandOff() {
        isDraining = false
        isBlocked = true
    }

    /// Hands the drainer role to the calling thread: when nobody is draining, unblocks and returns the event the
    /// caller must start draining with (`event` itself when `first`, otherwise `event` comes after anything
    /// queued before it); otherwise returns `nil` and changes nothing, so the caller can try again once the
    /// current drainer has stopped.
    mutating func resumeExclusively(with event: EventContextStep, first: Bool) -> EventContextStep? {
        guard !isDraining else { return nil }
        isBlocked = false
        if first {
            isDraining = true
            return event
        }
        return becomeDrainer(then: event)
    }

    private mutating func becomeDrainer(then event: EventContextStep) -> EventContextStep {
        isDraining = true
        guard let queued = dequeue() else { return event }
        enqueue(event)
        return queued
    }
}
