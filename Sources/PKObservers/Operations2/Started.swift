import PKCore

/// An observer told when a procedure starts: just before `execute()` is called (Operations 2.x's name).
///
/// A refinement of ``/PKCore/ProcedureObserver`` for one event: conforming types implement
/// ``didStartOperation(_:)`` only; it is called in the procedure's WillExecute phase. A procedure cancelled before
/// it starts never calls it.
public protocol OperationDidStartObserver: ProcedureObserver {
    /// The procedure is about to execute.
    func didStartOperation(_ operation: Procedure)
}

extension OperationDidStartObserver {
    /// Calls ``didStartOperation(_:)``.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        didStartOperation(procedure)
    }
}

/// Runs a block just before a procedure's `execute()` is called.
///
/// ```swift
/// operation.addObserver(StartedObserver { op in
///     print("Lets go!")
/// })
/// ```
///
/// Thread-safe: the block is immutable and must be `@Sendable`; it runs in the procedure's event context, never
/// at the same time as the procedure's other events.
public struct StartedObserver: OperationDidStartObserver {
    /// The block's type: it receives the procedure.
    public typealias BlockType = @Sendable (Procedure) -> Void

    private let block: BlockType

    /// Creates an observer that runs `didStart` when the procedure starts.
    public init(didStart: @escaping BlockType) {
        self.block = didStart
    }

    /// Runs the block.
    public func didStartOperation(_ operation: Procedure) {
        block(operation)
    }
}
