/// What a capability check does once it knows whether the capability is available.
enum CapabilityCheckMode: Sendable {
    /// Read the status, available or not (``GetAuthorizationStatusProcedure``).
    case read
    /// Request authorization when available, then read the status (``AuthorizeCapabilityProcedure``).
    case requestThenRead
    /// Read the status only when available (``AuthorizedFor``).
    case readIfAvailable
}

/// The life of one check of a capability: optionally request authorization, then read the status, with an
/// optional timeout and cancellation racing both steps.
///
/// Inputs arrive from the framework (start, cancel), from the capability (its two completion handlers, which may
/// be called from any thread, late, twice or never) and from a clock (the timeout). Each input returns the
/// ``Action`` its owner performs outside the lock. The machine holds no locks, callbacks or clocks; `Timer` is
/// whatever handle the owner uses to cancel a scheduled timeout.
///
/// ```
/// idle ──start──▶ requesting ──request done──▶ readingStatus ──status──▶ finished
///   │                 │                              │
///   └──cancel──▶ cancelled ◀──cancel──────────────────┘        (timeout: requesting/readingStatus ──▶ finished)
/// ```
struct CapabilityCheckStateMachine<Status, Timer> {

    enum State {
        /// Not started.
        case idle
        /// Waiting for the capability's request completion.
        case requesting(isAvailable: Bool, timer: Timer?)
        /// Waiting for the capability's status.
        case readingStatus(isAvailable: Bool, timer: Timer?)
        /// Completed with a status, or timed out.
        case finished
        /// Cancelled before completing.
        case cancelled
    }

    /// What the owner does next.
    enum Action {
        /// Nothing.
        case none
        /// Ask the capability to request authorization.
        case request
        /// Ask the capability for its status.
        case readStatus
        /// Report that the capability is unavailable (nothing was asked).
        case reportUnavailable
        /// Report the status; cancel the timer if there is one.
        case complete(isAvailable: Bool, status: Status, cancelTimer: Timer?)
        /// Report that the timeout passed first; cancel the timer if there is one (it has fired already).
        case timeOut(cancelTimer: Timer?)
        /// Report the cancellation; cancel the timer if there is one.
        case cancel(cancelTimer: Timer?)
        /// A timer armed after the check ended: cancel it.
        case cancelTimer(Timer)
    }

    private(set) var state = State.idle

    /// The check starts, knowing whether the capability is available; `mode` says what it does next.
    mutating func start(_ mode: CapabilityCheckMode, isAvailable: Bool) -> Action {
        switch state {
        case .idle:
            switch (mode, isAvailable) {
            case (.requestThenRead, true):
                state = .requesting(isAvailable: true, timer: nil)
                return .request
            case (.readIfAvailable, false):
                state = .finished
                return .reportUnavailable
            case (.read, _), (.requestThenRead, false), (.readIfAvailable, true):
                state = .readingStatus(isAvailable: isAvailable, timer: nil)
                return .readStatus
            }
        case .cancelled:
            // A procedure cancelled before it executes never calls start; if it ever did, report the cancellation
            // again so that it still finishes.
            return .cancel(cancelTimer: nil)
        case .requesting, .readingStatus, .finished:
            preconditionFailure("capability check started twice (state \(state))")
        }
    }

    /// Whether the check waits for the capability (so a timeout is worth arming).
    var isWaiting: Bool {
        switch state {
        case .requesting, .readingStatus: true
        case .idle, .finished, .cancelled: false
        }
    }

    /// The owner scheduled the timeout: keep its handle, or have it cancelled when the check already ended.
    mutating func armed(_ timer: Timer) -> Action {
        switch state {
        case .requesting(let isAvailable, nil):
            state = .requesting(isAvailable: isAvailable, timer: timer)
            return .none
        case .readingStatus(let isAvailable, nil):
            state = .readingStatus(isAvailable: isAvailable, timer: timer)
            return .none
        case .finished, .cancelled:
            return .cancelTimer(timer)
        case .idle, .requesting, .readingStatus:
            preconditionFailure("capability check armed before starting, or twice (state \(state))")
        }
    }

    /// The capability called the request's completion handler.
    mutating func requestCompleted() -> Action {
        switch state {
        case .requesting(let isAvailable, let timer):
            state = .readingStatus(isAvailable: isAvailable, timer: timer)
            return .readStatus
        case .readingStatus, .finished, .cancelled:
            // Late (after a timeout or cancel) or a second call from a faulty capability: ignored.
            return .none
        case .idle:
            preconditionFailure("request completed before the check started")
        }
    }

    /// The capability reported its status.
    mutating func statusRead(_ status: Status) -> Action {
        switch state {
        case .readingStatus(let isAvailable, let timer):
            state = .finished
            return .complete(isAvailable: isAvailable, status: status, cancelTimer: timer)
        case .requesting, .finished, .cancelled:
            // Late, or a second call from a faulty capability: ignored.
            return .none
        case .idle:
            preconditionFailure("status read before the check started")
        }
    }

    /// The timeout passed.
    mutating func timedOut() -> Action {
        switch state {
        case .requesting(_, let timer), .readingStatus(_, let timer):
            state = .finished
            return .timeOut(cancelTimer: timer)
        case .finished, .cancelled:
            return .none
        case .idle:
            preconditionFailure("timed out before the check started")
        }
    }

    /// The owner was cancelled.
    mutating func cancelled() -> Action {
        switch state {
        case .idle:
            state = .cancelled
            return .none
        case .requesting(_, let timer), .readingStatus(_, let timer):
            state = .cancelled
            return .cancel(cancelTimer: timer)
        case .finished, .cancelled:
            return .none
        }
    }
}
