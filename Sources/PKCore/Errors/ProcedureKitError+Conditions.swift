extension ProcedureKitError {

    /// The error a `FalseCondition` fails with. All values are equal.
    public struct FalseCondition: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
        /// Creates the error.
        public init() {}

        /// `"FalseCondition"`.
        public var description: String { "FalseCondition" }
    }

    /// Several conditions failed (an OR none of whose branches held, say); ``errors`` are their errors, nested
    /// lists flattened.
    public struct FailedConditions: Error, Sendable, CustomStringConvertible {
        /// The conditions' errors, in the order they were reported.
        public let errors: [any Error]

        /// Creates the error from `errors`, flattening any that are themselves `FailedConditions`.
        public init(errors: [any Error]) {
            self.errors = errors.flatMap { ($0 as? FailedConditions)?.errors ?? [$0] }
        }

        /// `FailedConditions(<errors>)`.
        public var description: String {
            "FailedConditions(" + errors.map { String(describing: $0) }.joined(separator: ", ") + ")"
        }
    }

    /// An evaluation was abandoned before the condition decided (the procedure was cancelled meanwhile). The
    /// procedure never sees it: it is already cancelled. All values are equal.
    public struct ConditionEvaluationCancelled: Error, Equatable, Hashable, Sendable {
        /// Creates the error.
        public init() {}
    }

    /// A dependency of ``condition`` finished with errors, and the condition's
    /// ``Condition/dependencyRequirements`` include `.noFailed`. Equal when the conditions are the same object.
    public struct ConditionDependenciesFailed: Error, Equatable, Sendable, CustomStringConvertible {
        /// The condition whose dependency failed.
        public let condition: Condition

        /// Creates the error for `condition`.
        public init(condition: Condition) {
            self.condition = condition
        }

        /// Identity of the conditions.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.condition === rhs.condition }

        /// `ConditionDependenciesFailed(condition: <name>)`.
        public var description: String { "ConditionDependenciesFailed(condition: \(condition.conditionName))" }
    }

    /// A dependency of ``condition`` was cancelled, and the condition's ``Condition/dependencyRequirements``
    /// include `.noCancelled`. Equal when the conditions are the same object.
    public struct ConditionDependenciesCancelled: Error, Equatable, Sendable, CustomStringConvertible {
        /// The condition whose dependency was cancelled.
        public let condition: Condition

        /// Creates the error for `condition`.
        public init(condition: Condition) {
            self.condition = condition
        }

        /// Identity of the conditions.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.condition === rhs.condition }

        /// `ConditionDependenciesCancelled(condition: <name>)`.
        public var description: String { "ConditionDependenciesCancelled(condition: \(condition.conditionName))" }
    }
}
