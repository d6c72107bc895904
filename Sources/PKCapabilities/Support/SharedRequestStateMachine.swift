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
struct SharedRequestStateMachine<Waiter, Timer> {

    enum State {
        /// No request in flight; the next one gets generation `next`.
        case idle(next: UInt64)
        /// The authorize step of `generation` runs; `waiters` are to be completed when it ends.
        case inFlight(generation: UInt64, waiters: [Waiter], timer: Timer?)
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
        /// Apply the outcome (cancelling the timer, if any), then report ``SharedRequestStateMachine/settled()``.
        case settle(cancelTimer: Timer?)
        /// Call each waiter.
        case complete([Waiter])
    }

    private(set) var state = State.idle(next: 0)

    /// Someone asks for authorization.
    mutating func request(_ waiter: Waiter) -> Action {
        switch state {
        case .idle(let next):
            state = .inFlight(generation: next, waiters: [waiter], timer: nil)
            return .start(generation: next)
        case .inFlight(let generation, var waiters, let timer):
            waiters.append(waiter)
            state = .inFlight(generation: generation, waiters: waiters, timer: timer)
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
        case .inFlight(generation, let waiters, nil):
            state = .inFlight(generation: generation, waiters: waiters, timer: timer)
            return .none
        case .idle, .inFlight, .settling:
            // Its request already ended (answered before the timer was stored).
            return .cancelTimer(timer)
        }
    }

    /// The authorize step of `generation` answered, timed out, or was abandoned: whichever comes first settles it.
    mutating func ended(generation: UInt64) -> Action {
        switch state {
        case .inFlight(generation, let waiters, let timer):
            state = .settling(generation: generation, waiters: waiters)
            return .settle(cancelTimer: timer)
        case .idle, .inFlight, .settling:
            // Late: that request was settled already.
            return .none
        }
    }

    /// The request in flight, if any, is abandoned: its generation, so the owner can end it.
    var inFlightGeneration: UInt64? {
        if case .inFlight(let generation, _, _) = state { return generation }
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
