/// A condition satisfied when all of its conditions are: the AND of a list (see ``CompoundCondition``).
///
/// The first failure decides; otherwise an ignored condition ignores, and only when every condition is satisfied
/// is the AND satisfied. An empty list is ignored. The name lists the conditions' names, such as
/// `"And<TrueCondition, BlockCondition>"`.
///
/// ```swift
/// procedure.add(condition: isOnline && hasCredentials)
/// ```
open class AndCondition: CompoundCondition, @unchecked Sendable {
    // @unchecked Sendable: no state of its own; CompoundCondition documents its locking.

    /// Creates the AND of `conditions`; duplicate instances are removed, keeping the first.
    public init(_ conditions: [Condition]) {
        super.init(andPredicateWith: conditions)
    }

    /// Creates the AND of `conditions`.
    public convenience init(_ conditions: Condition...) {
        self.init(conditions)
    }
}

/// The AND of two conditions. An operand that is itself an ``AndCondition`` contributes its conditions, so
/// `a && b && c` is one `AndCondition` of three.
public func && (lhs: Condition, rhs: Condition) -> AndCondition {
    AndCondition(andOperands(lhs) + andOperands(rhs))
}

private func andOperands(_ condition: Condition) -> [Condition] {
    (condition as? AndCondition)?.conditions ?? [condition]
}
