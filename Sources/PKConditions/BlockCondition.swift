/// A condition decided by a closure: `true` satisfies it, `false` ignores it, and a thrown error fails it.
///
/// ```swift
/// procedure.add(condition: BlockCondition { FileManager.default.fileExists(atPath: path) })
/// ```
///
/// - Satisfied (`true`): the procedure may execute.
/// - Ignored (`false`): the procedure does not execute; it finishes cancelled with no error.
/// - Failed (the block throws `E`): the procedure does not execute; it finishes cancelled with
///   `ProcedureKitError.conditionFailed(with: E)` (context `conditionFailed`, `E` as its underlying error), as in
///   ProcedureKit.
///
/// The block is called synchronously from ``evaluate(procedure:completion:)``, on the framework's evaluation
/// thread, once per evaluation. It cannot be interrupted: cancelling the procedure while the block runs only
/// means its answer is discarded.
public final class BlockCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `block` is immutable and Sendable; the superclass guards its own state with its PKMutex.

    /// The closure that decides.
    public let block: @Sendable () throws -> Bool

    /// Creates a condition that calls `block` to decide.
    ///
    /// - Parameters:
    ///   - name: The condition's name, used in errors and logs; `nil` for `"BlockCondition"`.
    ///   - block: Returns `true` to satisfy the condition, `false` to ignore it; throws to fail it.
    public init(name: String? = nil, block: @escaping @Sendable () throws -> Bool) {
        self.block = block
        super.init()
        if let name { self.name = name }
    }

    /// Calls the block and completes with its answer (or the error it threw), synchronously, on the calling
    /// evaluation thread.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        do {
            completion(.success(try block()))
        } catch {
            completion(.failure(ProcedureKitError.conditionFailed(with: error)))
        }
    }
}
