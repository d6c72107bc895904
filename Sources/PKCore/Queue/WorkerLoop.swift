import Dispatch
import Synchronization

/// The loop a queue's dispatched work runs in: it keeps taking ready work from its queue until none is left.
///
/// A queue does not dispatch every ready operation. It dispatches a loop only when none is waiting to start
/// (``ProcedureQueueState/reserveLoop()``); a loop takes the next ready operation when it starts and again after each
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
/// The per-thread state lives on the loop's stack and is reached through a ``ThreadLocalPointer``.
///
/// PERF(W1): a loop per burst, not a dispatch per operation. PERF(W3): the finish-to-next hand-off runs a chain on
/// one thread without a dispatch per link.
enum WorkerLoop {

    /// Operations one dispatched block runs before the loop yields its thread back to Dispatch.
    static let batchLimit = 256

    /// Where a queue's loops are dispatched: a ``LoopBudget`` lane at a quality of service, or its
    /// `underlyingQueue`.
    enum Target: Equatable {
        case lane(DispatchQoS.QoSClass)
        case underlying(DispatchQueue)

        static func == (lhs: Target, rhs: Target) -> Bool {
            switch (lhs, rhs) {
            case (.lane(let left), .lane(let right)): left == right
            case (.underlying(let left), .underlying(let right)): left === right
            default: false
            }
        }
    }

    /// Where a running loop belongs, which decides what it gives back when it ends.
    private enum Lane {
        /// A ``LoopBudget`` lane, by index.
        case lane(Int)
        /// The queue's `underlyingQueue`.
        case underlying
        /// A relief thread of its own (a private serial queue), given by the budget's monitor.
        case relief(DispatchQueue)
    }

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

    /// The slot of the loop running on this thread.
    private static let currentSlot = ThreadLocalPointer<Slot>()

    private static var slot: UnsafeMutablePointer<Slot>? {
        @inline(__always) get { currentSlot.current }
    }

    /// Where a queue's ``ProcedureQueue/loopBlock`` finds its queue: set once, in the queue's initializer. Not
    /// retained (the queue holds this entry through its block); a dispatched loop's queue is kept alive by the
    /// reference ``spawn(for:on:)`` took for it.
    final class Entry: Sendable {
        let queue = Atomic<Unmanaged<ProcedureQueue>?>(nil)
    }

    /// Dispatches a loop that takes ready work from `queue` when it starts; the caller has counted it in the
    /// queue's `pendingLoops`. The pending loop holds a reference to the queue until it ends. A loop for a lane first
    /// takes one from the ``LoopBudget``, or waits there for one.
    static func spawn(for queue: ProcedureQueue, on target: Target) {
        let reference = QueueKeepAlive.retainForLoop(queue)
        switch target {
        case .underlying(let underlying):
            underlying.async(execute: queue.loopBlock)
        case .lane(let qos):
            if let (index, lane) = LoopBudget.acquire(reference, qos: qos) {
                runOnLane(reference, first: nil, lane: index, on: lane)
            }
        }
    }

    /// The body of a dispatched loop: drives it (see ``drive(_:first:lane:)``).
    static func runDispatched(_ entry: Entry) {
        guard let reference = entry.queue.load(ordering: .acquiring) else { return }
        drive(reference, first: nil, lane: .underlying)
    }

    /// Dispatches the loop `reference` refers to, starting with `first` if given, on `queue`, lane `lane`'s queue.
    static func runOnLane(_ reference: Unmanaged<ProcedureQueue>, first: Work?, lane: Int, on queue: DispatchQueue) {
        queue.async { drive(reference, first: first, lane: .lane(lane)) }
    }

    /// Runs a loop that waited for a lane on a thread of its own, given by the budget's monitor because every
    /// lane's loop was blocked.
    static func runRelief(_ waiting: LoopBudget.Waiting) {
        let qos = DispatchQoS(qosClass: waiting.qos, relativePriority: 0)
        let relief = DispatchQueue(label: "PKCore.WorkerLoop.relief", qos: qos)
        relief.async { drive(waiting.queue, first: waiting.first, lane: .relief(relief)) }
    }

    /// Runs `reference`'s loop on this thread and gives back the reference (the one ``spawn(for:on:)`` took, or a
    /// continuation's). When the loop ends on a lane and loops are waiting for one, the lane passes to the first of
    /// them, which runs next on this same thread: no dispatch, and no recursion.
    private static func drive(_ reference: Unmanaged<ProcedureQueue>, first: Work?, lane: Lane) {
        var next: (queue: Unmanaged<ProcedureQueue>, work: Work?)? = (reference, first)
        while let (queue, work) = next {
            next = nil
            let outcome = queue._withUnsafeGuaranteedRef { run($0, first: work, lane: lane) }
            switch outcome {
            case .continued:
                QueueKeepAlive.releaseLoop(queue)
                return
            case .yielded(let waiting):
                // The loop waits in the budget's line, holding the reference it ran with.
                next = (waiting.queue, waiting.first)
                continue
            case .ended:
                QueueKeepAlive.releaseLoop(queue)
            }
            switch lane {
            case .lane(let index):
                if let waiting = LoopBudget.laneLoopEnded(index) { next = (waiting.queue, waiting.first) }
            case .relief:
                LoopBudget.reliefLoopEnded()
            case .underlying:
                break
            }
        }
    }

    /// How a loop's run on a thread ended.
    private enum RunOutcome {
        /// The queue has no work left for it.
        case ended
        /// It ran a batch and goes on in a new block, holding its own reference to the queue.
        case continued
        /// It held its lane or relief thread for a slice while another queue's loop waited: it now waits in the
        /// budget's line (with the reference it ran with), and this is the loop that takes its place, on this thread.
        case yielded(LoopBudget.Waiting)
    }

    /// Runs `queue`'s loop until it has no work, has run a batch (it goes on in a new block wherever the queue's
    /// work now runs), or has held a lane or relief thread for a ``LoopBudget/slice`` while another queue's loop
    /// waits (it gives its place up).
    private static func run(_ queue: ProcedureQueue, first: Work?, lane: Lane) -> RunOutcome {
        var sliceEnds = UInt64.max
        switch lane {
        case .lane(let index):
            LoopBudget.laneLoopStarted(index)
            sliceEnds = DispatchTime.now().uptimeNanoseconds &+ LoopBudget.slice
        case .relief:
            sliceEnds = DispatchTime.now().uptimeNanoseconds &+ LoopBudget.slice
        case .underlying:
            break
        }
        /// Why the loop below stopped before its queue ran out of work.
        enum Stop {
            case batch(Work, Target)
            case yielded(LoopBudget.Waiting)
        }
        var state = Slot(queue: ObjectIdentifier(queue))
        let stop = withUnsafeMutablePointer(to: &state) { slot -> Stop? in
            currentSlot.withCurrent(slot) { () -> Stop? in
                var next = first ?? queue.nextForLoop(starting: true)
                var remaining = batchLimit
                while let work = next {
                    switch work {
                    case .start(let member):
                        if case .procedure(let procedure) = member {
                            slot.pointee.current = ObjectIdentifier(procedure)
                        }
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
                    guard let work = next else { break }
                    if remaining == 0 {
                        // Already taken (a member counted as running): a new block starts with it, wherever the
                        // queue's work runs now.
                        return .batch(work, queue.loopTarget)
                    }
                    // PERF(W1): the clock is read every 4th operation, and only while loops wait for a lane (which,
                    // on a busy queue, is nearly always: its next loop waits too).
                    if remaining & 3 == 0, sliceEnds != UInt64.max, LoopBudget.loopsAreWaiting {
                        let now = DispatchTime.now().uptimeNanoseconds
                        guard now >= sliceEnds, case .lane(let qos) = queue.loopTarget else { continue }
                        let reference = Unmanaged.passUnretained(queue)
                        if let waiting = LoopBudget.yield(queue: reference, qos: qos, first: work) {
                            return .yielded(waiting)
                        }
                        // Only loops of this queue wait: a new slice.
                        sliceEnds = now &+ LoopBudget.slice
                    }
                }
                return nil
            }
        }
        let work: Work
        let target: Target
        switch stop {
        case nil:
            return .ended
        case .yielded(let waiting)?:
            if case .lane(let index) = lane { LoopBudget.laneLoopPaused(index) }
            return .yielded(waiting)
        case .batch(let next, let nextTarget)?:
            work = next
            target = nextTarget
        }
        // Yield the thread after a batch, keeping the lane (or the relief thread) while the queue's work still
        // runs in lanes.
        let reference = QueueKeepAlive.retainForLoop(queue)
        switch (lane, target) {
        case (.relief(let relief), .lane):
            relief.async { drive(reference, first: work, lane: lane) }
        case (.lane(let index), .lane(let qos)):
            LoopBudget.laneLoopPaused(index)
            LoopBudget.queue(ofLane: index, qos: qos).async { drive(reference, first: work, lane: lane) }
        case (.lane(let index), .underlying(let underlying)):
            // The queue's work moved to an `underlyingQueue`: the lane goes back (or to a waiting loop).
            if let waiting = LoopBudget.laneLoopEnded(index) {
                LoopBudget.queue(ofLane: index, qos: waiting.qos).async {
                    drive(waiting.queue, first: waiting.first, lane: lane)
                }
            }
            underlying.async { drive(reference, first: work, lane: .underlying) }
        case (.relief, .underlying(let underlying)):
            LoopBudget.reliefLoopEnded()
            underlying.async { drive(reference, first: work, lane: .underlying) }
        case (.underlying, .underlying(let underlying)):
            underlying.async { drive(reference, first: work, lane: .underlying) }
        case (.underlying, .lane(let qos)):
            // The queue's `underlyingQueue` was removed while this loop ran: it finishes this batch outside the
            // budget.
            DispatchQueue.global(qos: qos).async { drive(reference, first: work, lane: .underlying) }
        }
        return .continued
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
