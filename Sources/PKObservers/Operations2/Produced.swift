import Foundation
import PKCore

/// An observer told when a procedure produces another operation (Operations 2.x's name).
///
/// A refinement of ``/PKCore/ProcedureObserver`` for one event: conforming types implement
/// ``operation(_:didProduceOperation:)`` only; it is called after the produced operation was added to the
/// producer's queue (for a group, after a child was added: the group produces its children).
public protocol OperationDidProduceOperationObserver: ProcedureObserver {
    /// `operation` produced `newOperation`, which is now on its queue.
    func operation(_ operation: Procedure, didProduceOperation newOperation: Operation)
}

extension OperationDidProduceOperationObserver {
    /// Calls ``operation(_:didProduceOperation:)``.
    public func procedure(_ procedure: Procedure, didAdd newOperation: Operation) {
        operation(procedure, didProduceOperation: newOperation)
    }
}

/// Runs a block when a procedure produces another operation.
///
/// Thread-safe: the block is immutable and must be `@Sendable`; it runs in the procedure's event context.
public struct ProducedOperationObserver: OperationDidProduceOperationObserver {
    /// The block's type: it receives the producer and the operation it produced.
    public typealias BlockType = @Sendable (Procedure, Operation) -> Void

    private let block: BlockType

    /// Creates an observer that runs `didProduce` whenever the procedure produces an operation.
    public init(didProduce: @escaping BlockType) {
        self.block = didProduce
    }

    /// Runs the block.
    public func operation(_ operation: Procedure, didProduceOperation newOperation: Operation) {
        block(operation, newOperation)
    }
}

/// The name Operations 2.x's documentation uses for ``ProducedOperationObserver``.
public typealias ProducedObserver = ProducedOperationObserver
