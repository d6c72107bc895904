import Foundation

/// Work waiting in a procedure's serial event context.
enum ProcedureEvent {
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
    /// Produce an operation onto the procedure's queue, holding `before` until it is added.
    case produce(Operation, PendingEvent?)
    /// The WillAdd phase of a produce is over: add the operation.
    case addProduced(Operation, PendingEvent?)
    /// Run a block serialized with the procedure's events (used by `synchronize`).
    case run(@Sendable () -> Void)
}

/// The run-or-enqueue state of a procedure's serial event context.
///
/// There is no thread or dispatch queue per procedure: whichever thread submits an event while nobody is
/// draining becomes the drainer and runs events until none are left; events submitted meanwhile (including from
/// inside an event, such as `finish()` inside `execute()`) wait their turn. While a pending-event token is
/// outstanding the context is blocked, and the token's release resumes it.
struct EventLoopState {
    private(set) var isDraining = false
    private(set) var isBlocked = false
    private var events: [ProcedureEvent] = []
    private var head = 0

    /// Queues `event`, or returns `true` when the caller should become the drainer and run it now.
    mutating func accept(_ event: ProcedureEvent) -> Bool {
        if isDraining || isBlocked {
            events.append(event)
            return false
        }
        isDraining = true
        return true
    }

    /// The next event for the drainer, or `nil` (and draining stops) when blocked or empty.
    mutating func next() -> ProcedureEvent? {
        if isBlocked || head == events.count {
            isDraining = false
            if head == events.count && head > 0 {
                events.removeAll(keepingCapacity: false)
                head = 0
            }
            return nil
        }
        let event = events[head]
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }

    /// Holds every later event until ``resume(with:)``.
    mutating func block() {
        isBlocked = true
    }

    /// Unblocks with `event` first in line; returns `true` when the caller should drain it now.
    mutating func resume(with event: ProcedureEvent) -> Bool {
        isBlocked = false
        if isDraining {
            events.insert(event, at: head)
            return false
        }
        isDraining = true
        return true
    }
}
