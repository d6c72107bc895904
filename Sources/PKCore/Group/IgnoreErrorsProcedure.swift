import Foundation

/// A ``ComposedProcedure`` that finishes without errors even when its procedure fails: the child's errors are
/// logged (at `info`) and dropped. The child keeps its own errors; `output` is forwarded when it has one.
open class IgnoreErrorsProcedure<T: Procedure>: ComposedProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own beyond the superclass's.

    /// Wraps `procedure`, ignoring its errors.
    public override init(operation procedure: T) {
        super.init(operation: procedure)
        name = "IgnoreErrors<\(String(describing: T.self))>"
    }

    /// Logs and drops the child's errors.
    open override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        guard !errors.isEmpty else { return }
        log.info("ignoring \(errors.count) error(s) from \(child.procedureName): \(errors)")
    }
}
