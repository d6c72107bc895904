import PKCore

/// State an observer value keeps for each procedure it is attached to, keyed by the procedure's identity.
///
/// Observers here are values that may be attached to many procedures at once (one `TimeoutObserver` for a whole
/// batch, say), so what they remember about one procedure lives in this shared box, entered at an event (will
/// execute) and removed at finish. Entries hold no reference to the procedure. An entry outlives its procedure only
/// if the procedure is released between those two events, which a running procedure cannot be.
///
/// Thread-safe: the table is guarded by its mutex; no caller's code runs under it.
final class PerProcedureState<Value: Sendable>: Sendable {
    private let table = PKMutex<[ObjectIdentifier: Value]>([:])

    init() {}

    /// Stores `value` for `procedure`, returning what was there.
    @discardableResult
    func set(_ value: Value, for procedure: Procedure) -> Value? {
        table.withLock { $0.updateValue(value, forKey: ObjectIdentifier(procedure)) }
    }

    /// Removes and returns `procedure`'s value.
    func remove(for procedure: Procedure) -> Value? {
        table.withLock { $0.removeValue(forKey: ObjectIdentifier(procedure)) }
    }

    /// Updates `procedure`'s value in place (creating it from `initial` if missing) and returns `body`'s result.
    func update<R>(for procedure: Procedure, initial: Value, _ body: (inout Value) -> R) -> R {
        table.withLock { body(&$0[ObjectIdentifier(procedure), default: initial]) }
    }

    /// How many procedures have an entry; for tests.
    var count: Int { table.withLock { $0.count } }
}
