/// One authorization request at a time for a capability, shared by everyone who asks while it is in flight.
///
/// ``Capability/Credential`` and ``Capability/UserConsent`` use it so that two callers racing to authorize one
/// capability run one authorize step (one prompt, one token refresh) and both hear when it ends. Each request
/// has a generation number, so an answer that arrives after its request was settled (timed out, abandoned) is
/// recognised and ignored.
///
/// ```
/// idle ──request──▶ inFlight ──answered / timedOut / abandoned──▶ settling ──settled──▶ idle
///                     ▲ request: joins                              ▲ request: joins
/// ```
///
/// In `settling` the owner applies the outcome (saves a token, records an error) outside the lock; requests
/// arriving meanwhile join the waiters, and all of them are completed once the outcome is in place.
struct SharedRequestStateMachine<Waiter, Timer, Work> {

    enum State {
        /// No request in flight; the next one gets generation `next`.
        case idle(next: UInt64)
        /// The authorize step of `generation` runs (as `work`, once the owner says what it is); `waiters` are to be
        /// completed when it ends.
        case inFlight(generation: UInt64, waiters: [Waiter], timer: Timer?, work: Work?)
        /// The owner is applying the outcome of `generation`.
        case settling(generation: UInt64, waiters: [Waiter])
    }

    /// What the owner does next.
    enum Action {
        /// Nothing.
        case none
        /// Run the authorize step for `generation`.
        case start(generation: UInt64)
        /// A timer armed after its request ended: cancel it.
        case cancelTimer(Timer)
        /// Work that started after its request ended: cancel it.
        case cancelWork(Work)
        /// Apply the outcome (cancelling the timer, and the work if the outcome is not its answer), then report
        /// ``SharedRequestStateMachine/settled()``.
        case settle(cancelTimer: Timer?, work: Work?)
        /// Call each waiter.
        case complete([Waiter])
    }

    private(set) var state = State.idle(next: 0)

    /// Someone asks for authorization.
    mutating func request(_ waiter: Waiter) -> Action {
        switch state {
        case .idle(let next):
            state = .inFlight(generation: next, waiters: [waiter], timer: nil, work: nil)
            return .start(generation: next)
        case .inFlight(let generation, var waiters, let timer, let work):
            waiters.append(waiter)
            state = .inFlight(generation: generation, waiters: waiters, timer: timer, work: work)
            return .none
        case .settling(let generation, var waiters):
            waiters.append(waiter)
            state = .settling(generation: generation, waiters: waiters)
            return .none
        }
    }

    /// The owner scheduled the timeout of `generation`.
    mutating func armed(_ timer: Timer, generation: UInt64) -> Action {
        switch state {
        case .inFlight(generation, let waiters, nil, let work):
            state = .inFlight(generation: generation, waiters: waiters, timer: timer, work: work)
            return .none
        case .idle, .inFlight, .settling:
            // Its request already ended (answered before the timer was stored).
            return .cancelTimer(timer)
        }
    }

    /// The owner started the authorize step of `generation` as `work` (a Task, say).
    mutating func working(_ work: Work, generation: UInt64) -> Action {
        switch state {
        case .inFlight(generation, let waiters, let timer, nil):
            state = .inFlight(generation: generation, waiters: waiters, timer: timer, work: work)
            return .none
        case .idle, .inFlight, .settling:
            // Its request already ended (the work answered before it was stored): nothing to keep.
            return .cancelWork(work)
        }
    }

    /// The authorize step of `generation` answered, timed out, or was abandoned: whichever comes first settles it.
    mutating func ended(generation: UInt64) -> Action {
        switch state {
        case .inFlight(generation, let waiters, let timer, let work):
            state = .settling(generation: generation, waiters: waiters)
            return .settle(cancelTimer: timer, work: work)
        case .idle, .inFlight, .settling:
            // Late: that request was settled already.
            return .none
        }
    }

    /// The request in flight, if any, is abandoned: its generation, so the owner can end it.
    var inFlightGeneration: UInt64? {
        if case .inFlight(let generation, _, _, _) = state { return generation }
        return nil
    }

    /// The owner applied the outcome.
    mutating func settled() -> Action {
        switch state {
        case .settling(let generation, let waiters):
            state = .idle(next: generation + 1)
            return .complete(waiters)
        case .idle, .inFlight:
            preconditionFailure("settled without settling (state \(state))")
        }
    }
}
