/// A value read and written from several threads, guarded by a ``PKMutex``.
///
/// Value procedures keep their `input` and `output` in one of these, so that injection (on one procedure's event
/// context), `execute()` (on another) and callers on any thread all see a consistent value.
final class ValueStorage<Value: Sendable>: Sendable {

    private let mutex: PKMutex<Value>

    /// Creates the storage holding `initialValue`.
    init(_ initialValue: Value) {
        mutex = PKMutex(initialValue)
    }

    /// The value; each read and each write takes the lock once.
    var value: Value {
        get { mutex.withLock { $0 } }
        set {
            let replaced = mutex.withLock { replaceValue(&$0, with: newValue) }
            withExtendedLifetime(replaced) {}  // released outside the lock: the old value may hold user objects
        }
    }

    /// Runs `body` with exclusive access to the value and returns what it returns. `body` must not call out to
    /// user code.
    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
