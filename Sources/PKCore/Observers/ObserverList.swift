/// A procedure's observers, in the order they were added, and the union of the events they want.
///
/// PERF(W6, W12): the first observer is kept inline, so a procedure with one observer allocates nothing for the
/// list (it is allocated on the thread adding work and freed on a worker's, and such cross-thread frees contend
/// on the allocator's lock); from the second on, room for eight is reserved at once (framework procedures add
/// several), one allocation where growing one by one costs four.
struct ObserverList {
    private enum Storage {
        case empty
        case one(AnyProcedureObserver)
        case many([AnyProcedureObserver])
    }

    private var storage = Storage.empty
    /// The events at least one observer wants.
    private(set) var kinds: ObserverEventKinds = []
    /// The procedure's instrument, if it has one (see ``ProcedureInstrument``): kept with the observers so that
    /// every path that reads them has it at no extra cost.
    // PERF(W13)
    var instrument: (any ProcedureInstrument)?

    /// An empty list; `instrument` is kept when a finished procedure lets go of its observers.
    init(instrument: (any ProcedureInstrument)? = nil) {
        self.instrument = instrument
    }

    var isEmpty: Bool {
        if case .empty = storage { return true }
        return false
    }

    /// Whether any observer wants `kind`.
    func wants(_ kind: ObserverEventKinds) -> Bool { kinds.contains(kind) }

    mutating func append(_ observer: AnyProcedureObserver) {
        switch storage {
        case .empty:
            storage = .one(observer)
        case .one(let first):
            var observers: [AnyProcedureObserver] = []
            observers.reserveCapacity(8)
            observers.append(first)
            observers.append(observer)
            storage = .many(observers)
        case .many(var observers):
            storage = .empty  // so that `observers` is uniquely referenced and appends in place
            observers.append(observer)
            storage = .many(observers)
        }
        kinds.formUnion(observer.kinds)
    }

    /// Delivers `event` to every observer, in order.
    func send(_ event: ObserverCallback, to procedure: Procedure) {
        switch storage {
        case .empty: break
        case .one(let observer): observer.send(event, to: procedure)
        case .many(let observers): for observer in observers { observer.send(event, to: procedure) }
        }
    }
}
