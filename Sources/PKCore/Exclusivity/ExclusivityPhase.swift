/// Where one procedure stands with its mutually exclusive categories: a value kept in the procedure's storage,
/// under its lock, and changed only through the methods below.
///
/// ```
/// none ──conditions passed with categories──▶ needed ──started with a slot──▶ requested(ticket)
///                                               ▲                                  │ granted
///                                               └──── given back (queue suspended) ─ granted(ticket)
/// requested ──cancelled──▶ none (request withdrawn)        requested / granted ──finished──▶ none (released)
/// ```
///
/// A procedure asks for its categories only once its queue has given it a slot, so a granted category is never
/// held by a procedure waiting for a slot. The ticket is the request's identity with the
/// ``ExclusivityManager``: never reused, so releasing it twice, or after a cancel withdrew it, touches nothing
/// else.
enum ExclusivityPhase {
    /// No categories (or none any more).
    case none
    /// The conditions passed and named these categories; they are asked for when the procedure starts.
    case needed(Set<String>)
    /// Asked for under `ticket`; waiting to be granted.
    case requested(ticket: UInt64, categories: Set<String>)
    /// Granted under `ticket`; held until the procedure finishes.
    case granted(ticket: UInt64, categories: Set<String>)

    /// Starting with a slot: moves `needed` to `requested` with a new ticket and returns the request to make, or
    /// `nil` when there is nothing to ask for (no categories, or already granted).
    mutating func request(ticket makeTicket: () -> UInt64) -> (ticket: UInt64, categories: Set<String>)? {
        switch self {
        case .needed(let categories):
            let ticket = makeTicket()
            self = .requested(ticket: ticket, categories: categories)
            return (ticket, categories)
        case .none, .requested, .granted:
            return nil
        }
    }

    /// The manager granted `ticket`: returns `true` when this request still stands (it is now held), `false` when
    /// it was withdrawn meanwhile (the caller then releases the ticket).
    mutating func grant(_ ticket: UInt64) -> Bool {
        switch self {
        case .requested(let current, let categories) where current == ticket:
            self = .granted(ticket: ticket, categories: categories)
            return true
        case .granted(let current, _) where current == ticket:
            return true
        case .none, .needed, .requested, .granted:
            return false
        }
    }

    /// Whether `ticket` is still this procedure's request (waiting or granted). Checked right after registering
    /// it: a cancel may have withdrawn it while it was being registered.
    func holds(_ ticket: UInt64) -> Bool {
        switch self {
        case .requested(let current, _), .granted(let current, _): current == ticket
        case .none, .needed: false
        }
    }

    /// Cancelled while waiting for the grant: forgets the request and returns its ticket to withdraw.
    mutating func withdrawWaitingRequest() -> UInt64? {
        guard case .requested(let ticket, _) = self else { return nil }
        self = .none
        return ticket
    }

    /// Granted but not started, and its queue was suspended: goes back to `needed` and returns the ticket to
    /// release, so that nobody waits behind a procedure that cannot start.
    mutating func giveBack() -> UInt64? {
        guard case .granted(let ticket, let categories) = self else { return nil }
        self = .needed(categories)
        return ticket
    }

    /// A withdrawn or failed request: back to no categories.
    mutating func abandon(_ ticket: UInt64) {
        if holds(ticket) { self = .none }
    }

    /// Finished: forgets the request and returns its ticket to release, if any.
    mutating func takeTicket() -> UInt64? {
        switch self {
        case .requested(let ticket, _), .granted(let ticket, _):
            self = .none
            return ticket
        case .none, .needed:
            self = .none
            return nil
        }
    }
}

/// A request a procedure makes of the ``ExclusivityManager`` as it starts, prepared under its lock.
struct ExclusivityRequest {
    let ticket: UInt64
    let categories: Set<String>
    /// The procedures it was produced by, directly or through others.
    let ancestors: Set<ObjectIdentifier>
}
