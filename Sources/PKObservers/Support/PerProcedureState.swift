import PKCore

/// State an observer value keeps for each procedure it is attached to, keyed by the procedure's identity.
///
/// Observers here are values that may be attached to many procedures at once (one `TimeoutObserver` for a whole
/// batch, say), so what they remember about one procedure lives in this shared box, entered at an event (will
/// execute) and removed at finish. Entries hold no reference to the procedure. An entry outlives its procedure only
/// if the procedure is released between those two events, which a running procedure cannot be.
///
/// Most observer values watch one procedure at a time, so the first entry is kept inline and a dictionary is made
/// only for more (PERF(W12): no hash table per procedure).
///
/// Thread-safe: the table is guarded by its mutex; no caller's code runs under it.
final class PerProcedureState<Value: Sendable>: Sendable {

    private struct Table {
        var first: (key: ObjectIdentifier, value: Value)?
        var more: [ObjectIdentifier: Value] = [:]

        mutating func take(_ key: ObjectIdentifier) -> Value? {
            if let entry = first, entry.key == key {
                first = nil
                return entry.value
            }
            return more.isEmpty ? nil : more.removeValue(forKey: key)
        }

        mutating func put(_ key: ObjectIdentifier, _ value: Value) {
            if first == nil, more[key] == nil {
                first = (key, value)
            } else if let entry = first, entry.key == key {
                first = (key, value)
            } else {
                more[key] = value
            }
        }

        var count: Int { (first == nil ? 0 : 1) + more.count }
    }

    private let table = PKMutex(Table())

    init() {}

    /// Removes and returns `procedure`'s value.
    func remove(for procedure: Procedure) -> Value? {
        table.withLock { $0.take(ObjectIdentifier(procedure)) }
    }

    /// Updates `procedure`'s value in place (starting from `initial` if it has none) and returns `body`'s result.
    func update<R>(for procedure: Procedure, initial: Value, _ body: (inout Value) -> R) -> R {
        let key = ObjectIdentifier(procedure)
        return table.withLock { table in
            var value = table.take(key) ?? initial
            defer { table.put(key, value) }
            return body(&value)
        }
    }

    /// How many procedures have an entry; for tests.
    var count: Int { table.withLock { $0.count } }
}
