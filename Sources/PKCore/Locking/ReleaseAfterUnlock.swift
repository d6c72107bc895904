/// Stores `newValue` in `slot` and returns what `slot` held, without releasing it.
///
/// Use it inside a critical section, and let go of the result after the lock is released:
///
/// ```swift
/// let replaced = state.withLock { replaceValue(&$0.configure, with: block) }
/// withExtendedLifetime(replaced) {}  // released here, outside the lock
/// ```
///
/// A value dropped inside a critical section may be the last reference to a user object, whose `deinit` (user
/// code) would then run under the lock; see `LOCKING.md`.
@inline(__always)
func replaceValue<Value>(_ slot: inout Value, with newValue: Value) -> Value {
    var value = newValue
    swap(&slot, &value)
    return value
}
