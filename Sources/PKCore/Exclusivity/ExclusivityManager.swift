import Synchronization

/// The process-wide mutual-exclusion lock manager: procedures on any queue that share a category never run at
/// the same time.
///
/// A procedure asks for its categories once its queue has given it a slot, just before it starts (never while it
/// waits for a slot, so a granted category is never held by a procedure that cannot run); it releases them when it
/// finishes, or withdraws the request when it is cancelled first. Each request is registered under a ticket, a
/// number never used twice, so a late or repeated release can never touch another procedure's request. Grant
/// callbacks run outside the manager's lock, on the thread that released.
package final class ExclusivityManager: Sendable {

    /// The one manager.
    package static let shared = ExclusivityManager()

    /// What a request led to.
    enum RequestOutcome: Equatable {
        /// Granted at once; the grant callback will not be called.
        case granted
        /// Queued; the grant callback runs once the categories are granted (unless the ticket is released first).
        case waiting
        /// Granting would deadlock: these categories are held by a procedure the requester was produced by.
        /// Nothing was registered.
        case deadlock([String])
    }

    private struct Registry {
        var exclusivity = ExclusivityState<UInt64>()
        /// Grant callbacks of requests not granted yet, by ticket.
        var callbacks: [UInt64: @Sendable () -> Void] = [:]
        /// Each registered procedure's ticket, to recognise its producers among the holders.
        var tickets: [ObjectIdentifier: UInt64] = [:]
        var owners: [UInt64: ObjectIdentifier] = [:]
    }

    private let registry = PKMutex(Registry())
    private let lastTicket = Atomic<UInt64>(0)

    /// A ticket no request has used.
    func makeTicket() -> UInt64 {
        lastTicket.add(1, ordering: .relaxed).newValue
    }

    /// Requests `categories` under `ticket` for `procedure`, whose producers (directly or through others) are
    /// `ancestors`.
    func request(
        _ categories: Set<String>, ticket: UInt64, procedure: ObjectIdentifier, ancestors: Set<ObjectIdentifier>,
        onGrant: @escaping @Sendable () -> Void
    ) -> RequestOutcome {
        registry.withLock { registry in
            let ancestorTickets = Set(ancestors.compactMap { registry.tickets[$0] })
            switch registry.exclusivity.request(categories, for: ticket, ancestors: ancestorTickets) {
            case .queued(let granted):
                registry.tickets[procedure] = ticket
                registry.owners[ticket] = procedure
                if granted { return .granted }
                registry.callbacks[ticket] = onGrant
                return .waiting
            case .duplicate:
                // Tickets are never reused, so this cannot happen; report it as a grant held already.
                return .granted
            case .deadlock(let blocked):
                return .deadlock(blocked)
            }
        }
    }

    /// Releases the categories granted under `ticket`, or withdraws its request if not granted; then grants whoever
    /// is next. Releasing a ticket that is not registered (any more) does nothing.
    func release(_ ticket: UInt64) {
        let callbacks = registry.withLock { registry -> [@Sendable () -> Void] in
            registry.callbacks[ticket] = nil
            if let procedure = registry.owners.removeValue(forKey: ticket), registry.tickets[procedure] == ticket {
                registry.tickets[procedure] = nil
            }
            return registry.exclusivity.remove(ticket).compactMap { registry.callbacks.removeValue(forKey: $0) }
        }
        for callback in callbacks { callback() }
    }

    /// Forgets every request, granted or not, and grants the ones still waiting (their grant callbacks run, so
    /// their procedures go on). For test suites, between tests, once no procedure of the finished test can still
    /// be running: a procedure that holds a category keeps running, but no longer excludes anyone.
    package func reset() {
        let waiting = registry.withLock { registry -> [@Sendable () -> Void] in
            defer { registry = Registry() }
            return Array(registry.callbacks.values)
        }
        for callback in waiting { callback() }
    }

    /// How many requests wait for `category`; for tests.
    package func waitingCount(for category: String) -> Int {
        registry.withLock { $0.exclusivity.waitingCount(for: category) }
    }

    /// How many tickets are registered (granted or waiting); for tests.
    package var requestCount: Int { registry.withLock { $0.exclusivity.requests.count } }
}
