/// A condition that evaluates the wrapped condition without running the dependencies it produces.
///
/// Some conditions produce a dependency with a side effect, such as asking the user or requesting a permission,
/// before deciding. Wrapping one in `SilentCondition` removes those produced dependencies when the wrapper is
/// created (`Condition/removeProducedDependencies()`), so the inner condition decides from what is already
/// known. Its result is passed through unchanged. The name is `"Silent<inner>"`.
///
/// The inner condition's direct dependencies (`Condition/addDependency(_:)`) are still waited for. Threads and
/// cancellation are as for ``ComposedCondition``.
public final class SilentCondition: ComposedCondition, @unchecked Sendable {
    // @unchecked Sendable: no stored properties of its own; ComposedCondition documents its locking.

    /// Wraps `condition` and removes its produced dependencies; the name is `"Silent<name of condition>"`.
    public override init(_ condition: Condition) {
        condition.removeProducedDependencies()
        super.init(condition)
        name = "Silent<\(condition.conditionName)>"
    }
}
