/// A procedure's attached observers, in the order they were added, and the union of the events they want.
///
/// Not thread-safe: it lives in the procedure's storage, under the procedure's mutex.
struct ObserverList {
    private(set) var observers: [AnyProcedureObserver] = []
    /// The events at least one observer wants.
    private(set) var kinds: ObserverEventKinds = []

    var isEmpty: Bool { observers.isEmpty }

    /// Whether any observer wants `kind`.
    func wants(_ kind: ObserverEventKinds) -> Bool { kinds.contains(kind) }

    mutating func append(_ observer: AnyProcedureObserver) {
        // Procedures with observers often get several (framework procedures add their own): room for eight at
        // once costs one allocation where growing one by one costs four, for a list that lives only until finish.
        if observers.isEmpty { observers.reserveCapacity(8) }
        observers.append(observer)
        kinds.formUnion(observer.kinds)
    }

    /// Delivers `event` to every observer, in order.
    func send(_ event: ObserverEvent, to procedure: Procedure) {
        for observer in observers { observer.send(event, to: procedure) }
    }
}
