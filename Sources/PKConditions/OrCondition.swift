/// A condition satisfied when any of its conditions is: the OR of a list (see ``CompoundCondition``).
///
/// The first satisfied condition decides. Otherwise, when every condition failed the result is one
/// `ProcedureKitError.FailedConditions` holding all their errors (a single failure is reported as it is); with no
/// failure, ignored results (or an empty list) ignore. The name lists the conditions' names, such as
/// `"Or<TrueCondition, FalseCondition>"`.
///
/// ```swift
/// procedure.add(condition: isAdministrator || isOwner)
/// ```
open class OrCondition: CompoundCondition, @unchecked Sendable {
    // @unchecked Sendable: no state of its own; CompoundCondition documents its locking.

    /// Creates the OR of `conditions`; duplicate instances are removed, keeping the first.
    public init(_ conditions: [Condition]) {
        super.init(orPredicateWith: conditions)
    }

    /// Creates the OR of `conditions`.
    public convenience init(_ conditions: Condition...) {
        self.init(conditions)
    }
}

/// The OR of two conditions. An operand that is itself an ``OrCondition`` contributes its conditions, so
/// `a || b || c` is one `OrCondition` of three.
public func || (lhs: Condition, rhs: Condition) -> OrCondition {
    OrCondition(orOperands(lhs) + orOperands(rhs))
}

private func orOperands(_ condition: Condition) -> [Condition] {
    (condition as? OrCondition)?.conditions ?? [condition]
}
