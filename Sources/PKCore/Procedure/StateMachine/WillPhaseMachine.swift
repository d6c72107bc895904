/// The delivery of one "will" phase (WillExecute, WillFinish, WillAdd), deciding who runs its continuation: the
/// phase itself, inline, when the token's last reference went during delivery; otherwise whoever releases the last
/// reference afterwards (through ``PendingEvent``'s deinit, which reports ``tokenReleased(_:)`` and nothing else).
///
/// ```
/// idle ──beginDelivery(t)──▶ delivering(t) ──tokenReleased(t)──▶ releasedDuringDelivery
///  ▲                             │ endDelivery: continuationAwaitsToken     │ endDelivery: runContinuation
///  └─────────────────────────────┴──────────────────────────────────────────┘
/// tokenReleased(t) in any other state (a token that outlived its phase): submitContinuation, state unchanged
/// ```
///
/// Kept in the procedure's storage, under its lock; no locks, callbacks or clocks of its own. Phases of one
/// procedure never overlap (they run in its serial event context), so `beginDelivery` outside `idle` and
/// `endDelivery` in `idle` are impossible and trap.
struct WillPhaseMachine {
    enum State: Equatable {
        /// No phase is being delivered.
        case idle
        /// The phase is handing out the token with this identity.
        case delivering(token: ObjectIdentifier)
        /// The token's last reference went while the phase was still delivering.
        case releasedDuringDelivery
    }

    /// What the releasing thread does as a token's last reference goes.
    enum TokenReleasedAction: Equatable {
        /// Nothing: the phase is still delivering and runs the continuation inline when it ends.
        case phaseContinuesInline
        /// Submit the token's continuation to the event context.
        case submitContinuation
    }

    /// What the delivering thread does as the phase ends.
    enum EndDeliveryAction: Equatable {
        /// The token went during delivery: run the continuation now, inline.
        case runContinuation
        /// The token is still held: its release submits the continuation.
        case continuationAwaitsToken
    }

    private(set) var state = State.idle

    /// The phase starts handing out `token`.
    mutating func beginDelivery(token: ObjectIdentifier) {
        switch state {
        case .idle:
            state = .delivering(token: token)
        case .delivering, .releasedDuringDelivery:
            preconditionFailure("a will phase began while another was being delivered (\(state))")
        }
    }

    /// The last reference to `token` went.
    mutating func tokenReleased(_ token: ObjectIdentifier) -> TokenReleasedAction {
        switch state {
        case .delivering(let current) where current == token:
            state = .releasedDuringDelivery
            return .phaseContinuesInline
        case .idle, .delivering, .releasedDuringDelivery:
            return .submitContinuation
        }
    }

    /// Every observer of the phase has returned.
    mutating func endDelivery() -> EndDeliveryAction {
        switch state {
        case .delivering:
            state = .idle
            return .continuationAwaitsToken
        case .releasedDuringDelivery:
            state = .idle
            return .runContinuation
        case .idle:
            preconditionFailure("a will phase ended without being delivered (\(state))")
        }
    }
}
