import PKCore

/// An observer told when a procedure finishes: directly before it moves to the finished state (Operations 2.x's
/// name).
///
/// A refinement of ``/PKCore/ProcedureObserver`` for one event: conforming types implement
/// ``didFinishOperation(_:errors:)`` only. It is called in the procedure's WillFinish phase, so `isFinished` is
/// still `false` inside it and the procedure's dependents have not started yet; it receives every error the
/// procedure finishes with.
public protocol OperationDidFinishObserver: ProcedureObserver {
    /// The procedure is about to move to finished, with these errors.
    func didFinishOperation(_ operation: Procedure, errors: [any Error])
}

extension OperationDidFinishObserver {
    /// Calls ``didFinishOperation(_:errors:)``.
    public func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        didFinishOperation(procedure, errors: errors)
    }
}

/// Runs a block directly before a procedure moves to the finished state.
///
/// Thread-safe: the block is immutable and must be `@Sendable`; it runs in the procedure's event context.
public struct FinishedObserver: OperationDidFinishObserver {
    /// The block's type: it receives the procedure and its errors.
    public typealias BlockType = @Sendable (Procedure, [any Error]) -> Void

    private let block: BlockType

    /// Creates an observer that runs `didFinish` as the procedure finishes.
    public init(didFinish: @escaping BlockType) {
        self.block = didFinish
    }

    /// Runs the block.
    public func didFinishOperation(_ operation: Procedure, errors: [any Error]) {
        block(operation, errors)
    }
}
