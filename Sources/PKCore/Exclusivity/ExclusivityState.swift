/// The bookkeeping of mutual exclusion: which request holds each category, and one FIFO of waiting requests per
/// category.
///
/// A request for several categories is granted all at once, when none of them is held, or not at all: no request
/// holds one category while it waits for another (no hold-and-wait). A request that waits holds nothing and reserves
/// nothing: when a category is freed, it goes to the earliest request waiting for it whose categories are all free,
/// passing earlier ones that still wait for another category.
///
/// ProcedureKit reserved instead: a request was granted only once first in every one of its FIFOs, so a request
/// waiting for one category kept later requests out of the others. With nesting, that deadlocked: a group holding
/// category A, whose child asks for B behind a sibling that asked for A and B, waits for the child, which waits for
/// the sibling, which waits for the group (found by the randomized scenarios). The price of not reserving: under a
/// steady stream of single-category requests, a request for several categories may wait longer than its arrival
/// order would say. Requests for one category are served in arrival order.
///
/// Removing a request (release after a grant, or withdrawal before one) is idempotent and only ever removes that
/// request. A value type without locks or callbacks, so it is tested on its own; ``ExclusivityManager`` guards it
/// and runs the grant callbacks outside its lock.
struct ExclusivityState<Owner: Hashable> {

    struct Request {
        let owner: Owner
        let categories: [String]
        /// Arrival order, among every request.
        let sequence: UInt64
        var isGranted = false
    }

    enum RequestOutcome: Equatable {
        /// Queued; `granted` says whether it was granted at once.
        case queued(granted: Bool)
        /// The owner already has a request; nothing changed.
        case duplicate
        /// Granting would deadlock: these categories are held by one of `ancestors`.
        case deadlock([String])
    }

    /// The request holding each held category.
    private var holders: [String: Owner] = [:]
    /// Each category's waiting requests, in arrival order.
    private var waiting: [String: FIFO<Owner>] = [:]
    private(set) var requests: [Owner: Request] = [:]
    private var lastSequence: UInt64 = 0

    /// Asks for `categories` for `owner`. Fails fast when one of them is held by one of `ancestors` (the
    /// procedures that produced the owner, which would wait for it forever).
    mutating func request(_ categories: Set<String>, for owner: Owner, ancestors: Set<Owner>) -> RequestOutcome {
        guard requests[owner] == nil else { return .duplicate }
        let sorted = categories.sorted()
        let blocked = sorted.filter { category in
            guard let holder = holders[category] else { return false }
            return ancestors.contains(holder)
        }
        if !blocked.isEmpty { return .deadlock(blocked) }
        lastSequence += 1
        let request = Request(owner: owner, categories: sorted, sequence: lastSequence)
        requests[owner] = request
        // Anyone waiting for one of these categories while it is free also waits for another, held one (every
        // release grants whoever can go), so granting this request at once passes nobody who could go first.
        if isFree(request) {
            grant(owner)
            return .queued(granted: true)
        }
        for category in sorted { waiting[category, default: FIFO()].append(owner) }
        return .queued(granted: false)
    }

    /// Removes `owner`'s request, granted or not; returns the owners granted as a result, in arrival order. Does
    /// nothing when `owner` has no request.
    mutating func remove(_ owner: Owner) -> [Owner] {
        guard let request = requests.removeValue(forKey: owner) else { return [] }
        guard request.isGranted else {
            // A waiting request held nothing: withdrawing it frees nothing.
            for category in request.categories { removeWaiting(owner, from: category) }
            return []
        }
        for category in request.categories where holders[category] == owner { holders[category] = nil }
        return grantWaiting(for: request.categories)
    }

    /// The owner holding `category` now, if any.
    func holder(of category: String) -> Owner? {
        holders[category]
    }

    /// How many requests wait for `category`.
    func waitingCount(for category: String) -> Int {
        waiting[category]?.count ?? 0
    }

    /// Whether none of `request`'s categories is held.
    private func isFree(_ request: Request) -> Bool {
        request.categories.allSatisfy { holders[$0] == nil }
    }

    private mutating func grant(_ owner: Owner) {
        guard var request = requests[owner] else { return }
        request.isGranted = true
        requests[owner] = request
        for category in request.categories { holders[category] = owner }
    }

    private mutating func removeWaiting(_ owner: Owner, from category: String) {
        waiting[category]?.remove(owner)
        if waiting[category]?.isEmpty == true { waiting[category] = nil }
    }

    /// `freed` were just freed: grants, in arrival order, every waiting request whose categories are now all free.
    private mutating func grantWaiting(for freed: [String]) -> [Owner] {
        var granted: [Owner] = []
        while true {
            // The earliest waiting request in each freed, still free, category that could go now.
            var candidates: [Request] = []
            for category in freed where holders[category] == nil {
                guard let owner = waiting[category]?.first(where: { requests[$0].map(isFree) ?? false }),
                    let request = requests[owner]
                else { continue }
                candidates.append(request)
            }
            guard !candidates.isEmpty else { return granted }
            var progressed = false
            for candidate in candidates.sorted(by: { $0.sequence < $1.sequence }) {
                guard requests[candidate.owner]?.isGranted == false, isFree(candidate) else { continue }
                for category in candidate.categories { removeWaiting(candidate.owner, from: category) }
                grant(candidate.owner)
                granted.append(candidate.owner)
                progressed = true
            }
            // A candidate that lost to an earlier one leaves its category free for the next waiting request.
            guard progressed else { return granted }
        }
    }
}
