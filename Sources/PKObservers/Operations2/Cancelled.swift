import PKCore

/// An observer told when a procedure is cancelled (Operations 2.x's name).
///
/// A refinement of ``/PKCore/ProcedureObserver`` for one event: conforming types implement
/// ``didCancelOperation(_:)`` only; it is called in the procedure's DidCancel phase, once, whether the procedure
/// was cancelled before it started or while it ran. The cancel's errors are on the procedure (`errors`).
public protocol OperationDidCancelObserver: ProcedureObserver {
    /// The procedure was cancelled.
    func didCancelOperation(_ operation: Procedure)
}

extension OperationDidCancelObserver {
    /// Calls ``didCancelOperation(_:)``.
    public func did(cancel procedure: Procedure, withErrors errors: [any Error]) {
        didCancelOperation(procedure)
    }
}

/// Runs a block when a procedure is cancelled.
///
/// Thread-safe: the block is immutable and must be `@Sendable`; it runs in the procedure's event context.
public struct CancelledObserver: OperationDidCancelObserver {
    /// The block's type: it receives the procedure.
    public typealias BlockType = @Sendable (Procedure) -> Void

    private let block: BlockType

    /// Creates an observer that runs `didCancel` when the procedure is cancelled.
    public init(didCancel: @escaping BlockType) {
        self.block = didCancel
    }

    /// Runs the block.
    public func didCancelOperation(_ operation: Procedure) {
        block(operation)
    }
}
