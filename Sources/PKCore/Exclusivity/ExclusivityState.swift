/// The bookkeeping of mutual exclusion: one FIFO of requests per category.
///
/// A request for several categories enters every one of its FIFOs in one step, so all requests share one global
/// order and no request can hold one category while waiting for another (no hold-and-wait). A request is granted
/// when it is first in every one of its FIFOs. Removing a request (release after a grant, or withdrawal before
/// one) is idempotent and only ever removes that request. A value type without locks or callbacks, so it is
/// tested on its own; ``ExclusivityManager`` guards it and runs the grant callbacks outside its lock.
struct ExclusivityState<Owner: Hashable> {

    struct Request {
        let owner: Owner
        let categories: [String]
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

    /// Each category's requests, in arrival order.
    private var fifos: [String: FIFO<Owner>] = [:]
    private(set) var requests: [Owner: Request] = [:]

    /// Asks for `categories` for `owner`. Fails fast when one of them is held by one of `ancestors` (the
    /// procedures that produced the owner, which would wait for it forever).
    mutating func request(_ categories: Set<String>, for owner: Owner, ancestors: Set<Owner>) -> RequestOutcome {
        guard requests[owner] == nil else { return .duplicate }
        let sorted = categories.sorted()
        let blocked = sorted.filter { category in
            guard let holder = fifos[category]?.first, let request = requests[holder] else { return false }
            return request.isGranted && ancestors.contains(holder)
        }
        if !blocked.isEmpty { return .deadlock(blocked) }
        requests[owner] = Request(owner: owner, categories: sorted)
        for category in sorted { fifos[category, default: FIFO()].append(owner) }
        return .queued(granted: grantIfFirstEverywhere(owner))
    }

    /// Removes `owner`'s request, granted or not; returns the owners granted as a result. Does nothing when
    /// `owner` has no request.
    mutating func remove(_ owner: Owner) -> [Owner] {
        guard let request = requests.removeValue(forKey: owner) else { return [] }
        var granted: [Owner] = []
        for category in request.categories {
            fifos[category]?.remove(owner)
            if fifos[category]?.isEmpty == true { fifos[category] = nil }
        }
        for category in request.categories {
            if let next = fifos[category]?.first, grantIfFirstEverywhere(next) { granted.append(next) }
        }
        return granted
    }

    /// The owner holding `category` now, if any.
    func holder(of category: String) -> Owner? {
        guard let owner = fifos[category]?.first, requests[owner]?.isGranted == true else { return nil }
        return owner
    }

    private mutating func grantIfFirstEverywhere(_ owner: Owner) -> Bool {
        guard var request = requests[owner], !request.isGranted,
            request.categories.allSatisfy({ fifos[$0]?.first == owner })
        else { return false }
        request.isGranted = true
        requests[owner] = request
        return true
    }
}
