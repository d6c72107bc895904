import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The loop a queue's dispatched work runs in: it keeps taking ready work from its queue until none is left.
///
/// A queue does not dispatch every ready operation. It dispatches a loop only when none is waiting to start
/// (``ProcedureQueueState/needsLoop()``); a loop takes the next ready operation when it starts and again after each
/// one, so a burst of work costs a few dispatches, not one each. Whenever a loop takes an operation and more is
/// ready, it makes sure another loop is waiting to start, so an operation that blocks its thread never holds up
/// the rest for longer than Dispatch takes to find a thread. Loops also evaluate procedures' conditions, queued
/// separately because an evaluation takes no slot.
///
/// When the procedure a loop runs finishes on the loop's thread, the queue picks the next operation (often a
/// dependent that finish made ready) in the same critical section that frees the slot and hands it to the loop
/// (``handOff(_:)``), so a chain runs on one warm thread. A loop runs at most ``batchLimit`` operations in one
/// dispatched block before it re-dispatches itself, so it never monopolises a serial `underlyingQueue`.
///
/// The per-thread state lives on the loop's stack and is reached through a thread-specific key.
enum WorkerLoop {

    /// Operations one dispatched block runs before the loop yields its thread back to Dispatch.
    static let batchLimit = 256

    /// One item of a loop's work.
    enum Work {
        /// Start a ready member; it was counted as running when it was taken.
        case start(QueueMember)
        /// Evaluate a procedure's conditions (takes no slot).
        case evaluate(Procedure)
    }

    private struct Slot {
        let queue: ObjectIdentifier
        /// The procedure this loop is starting, while it is being started.
        var current: ObjectIdentifier?
        /// Set while `current` finishes on this thread: the loop takes its next operation from the queue's
        /// finish bookkeeping instead of asking again.
        var accepting = false
        /// Whether the queue already picked (in `handoff`, possibly nothing) this loop's next operation.
        var picked = false
        var handoff: Work?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var slot: UnsafeMutablePointer<Slot>? {
        pthread_getspecific(key)?.assumingMemoryBound(to: Slot.self)
    }

    /// Where a queue's ``ProcedureQueue/loopBlock`` finds its queue: set once, in the queue's initializer. Not
    /// retained (the queue holds this entry through its block); a dispatched loop's queue is kept alive by the
    /// reference ``spawn(for:on:)`` took for it.
    final class Entry: Sendable {
        let queue = Atomic<Unmanaged<ProcedureQueue>?>(nil)
    }

    /// Dispatches a loop that takes ready work from `queue` when it starts; the caller has counted it in the
    /// queue's `pendingLoops`. The pending loop holds a reference to the queue until it ends.
    static func spawn(for queue: ProcedureQueue, on target: DispatchQueue) {
        _ = Unmanaged.passRetained(queue)
        target.async(execute: queue.loopBlock)
    }

    /// The body of a dispatched loop: runs it, then gives back the reference ``spawn(for:on:)`` took.
    static func runDispatched(_ entry: Entry) {
        guard let reference = entry.queue.load(ordering: .acquiring) else { return }
        reference._withUnsafeGuaranteedRef { run($0, first: nil) }
        reference.release()
    }

    private static func run(_ queue: ProcedureQueue, first: Work?) {
        var state = Slot(queue: ObjectIdentifier(queue))
        withUnsafeMutablePointer(to: &state) { slot in
            let previous = pthread_getspecific(key)
            pthread_setspecific(key, slot)
            defer { pthread_setspecific(key, previous) }
            var next = first ?? queue.nextForLoop(starting: true)
            var remaining = batchLimit
            while let work = next {
                switch work {
                case .start(let member):
                    if case .procedure(let procedure) = member { slot.pointee.current = ObjectIdentifier(procedure) }
                    member.start()
                    slot.pointee.current = nil
                    slot.pointee.accepting = false
                case .evaluate(let procedure):
                    procedure.evaluateConditions()
                }
                if slot.pointee.picked {
                    next = slot.pointee.handoff
                    slot.pointee.handoff = nil
                    slot.pointee.picked = false
                } else {
                    next = queue.nextForLoop(starting: false)
                }
                remaining -= 1
                if remaining == 0, let work = next {
                    // Already taken (a member counted as running): the new block starts with it, wherever the
                    // queue's work runs now.
                    queue.dispatchTarget.async { run(queue, first: work) }
                    return
                }
            }
        }
    }

    /// Whether the calling thread is a loop of `queue` whose current procedure is finishing here: the queue's
    /// finish bookkeeping will pick that loop's next operation, so nothing else needs to be dispatched for it.
    static func willPick(for queue: ProcedureQueue) -> Bool {
        guard let slot else { return false }
        return slot.pointee.accepting && !slot.pointee.picked && slot.pointee.queue == ObjectIdentifier(queue)
    }

    /// Gives this thread's loop its next work (`nil`: none is waiting); only after ``willPick(for:)``.
    static func handOff(_ work: Work?) {
        guard let slot else { return }
        slot.pointee.handoff = work
        slot.pointee.picked = true
    }

    /// Called as `procedure` finishes: if this thread's loop is the one running it, the loop's next operation is
    /// picked when the queue frees its slot.
    static func procedureIsFinishing(_ procedure: Procedure) {
        guard let slot, slot.pointee.current == ObjectIdentifier(procedure) else { return }
        slot.pointee.accepting = true
    }
}
