import Foundation

/// A ``ComposedProcedure`` that runs its operation only if `gate` returns `true` when the procedure is about to
/// run (after its dependencies). `false`, or a throwing gate, cancels it without an error.
///
/// The gate runs on a framework dispatch queue, once.
open class GatedProcedure<T: Operation>: ComposedProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own beyond the superclass's.

    /// Wraps `operation` behind `gate`.
    public init(operation: T, gate: @escaping @Sendable () throws -> Bool) {
        super.init(operation: operation)
        name = "Gated<\(String(describing: T.self))>"
        add(condition: GateCondition(gate: gate))
    }

    /// Wraps `operation` behind `gate`.
    public convenience init(_ operation: T, gate: @escaping @Sendable () throws -> Bool) {
        self.init(operation: operation, gate: gate)
    }
}

/// The gate as a condition: `true` satisfies, `false` or a throw is ignored (cancelled without error).
final class GateCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `gate` is immutable and Sendable.
    private let gate: @Sendable () throws -> Bool

    init(gate: @escaping @Sendable () throws -> Bool) {
        self.gate = gate
        super.init()
        name = "Gate"
    }

    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.success((try? gate()) ?? false))
    }
}
