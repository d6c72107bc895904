import Foundation
import PKCore

/// A queue delegate that records every callback it receives, in order, for tests (ProcedureKit's
/// `QueueTestDelegate`).
///
/// ```swift
/// let delegate = QueueTestDelegate()
/// queue.delegate = delegate   // the queue holds its delegate weakly: keep `delegate` alive
/// // … run procedures …
/// XCTAssertEqual(delegate.procedureQueueDidFinishProcedure.count, 1)
/// ```
///
/// Each callback is appended to its list and then passed to the callback block, on whichever thread the queue
/// calls it. Thread-safe.
public final class QueueTestDelegate: ProcedureQueueDelegate {

    /// A plain operation being added, or added: the queue, the operation and the context.
    public typealias OperationCheckType = (ProcedureQueue, Operation, (any Sendable)?)
    /// A plain operation that finished.
    public typealias OperationFinishType = (ProcedureQueue, Operation)
    /// A procedure being added, or added: the queue, the procedure and the context.
    public typealias ProcedureCheckType = (ProcedureQueue, Procedure, (any Sendable)?)
    /// A procedure finishing, or finished, with its errors.
    public typealias ProcedureFinishType = (ProcedureQueue, Procedure, [any Error])

    /// One recorded callback.
    public enum CallbackKind: Sendable {
        /// `procedureQueue(_:willAddOperation:context:)`.
        case willAddOperation(ProcedureQueue, Operation, (any Sendable)?)
        /// `procedureQueue(_:didAddOperation:context:)`.
        case didAddOperation(ProcedureQueue, Operation, (any Sendable)?)
        /// `procedureQueue(_:didFinishOperation:)`.
        case didFinishOperation(ProcedureQueue, Operation)
        /// `procedureQueue(_:willAddProcedure:context:)`.
        case willAddProcedure(ProcedureQueue, Procedure, (any Sendable)?)
        /// `procedureQueue(_:didAddProcedure:context:)`.
        case didAddProcedure(ProcedureQueue, Procedure, (any Sendable)?)
        /// `procedureQueue(_:willFinishProcedure:withErrors:)`.
        case willFinishProcedure(ProcedureQueue, Procedure, [any Error])
        /// `procedureQueue(_:didFinishProcedure:withErrors:)`.
        case didFinishProcedure(ProcedureQueue, Procedure, [any Error])
    }

    /// Called with each callback after it is recorded.
    public typealias CallbackBlock = @Sendable (CallbackKind) -> Void

    private let callbacks = Protector<[CallbackKind]>([])
    private let callbackBlock: CallbackBlock

    /// Creates a delegate that also passes each callback to `callbackBlock`.
    public init(callbackBlock: @escaping CallbackBlock = { _ in }) {
        self.callbackBlock = callbackBlock
    }

    /// Every callback, in the order received.
    public var allCallbacks: [CallbackKind] { callbacks.access }

    /// The `willAddOperation` callbacks.
    public var procedureQueueWillAddOperation: [OperationCheckType] {
        allCallbacks.compactMap { if case .willAddOperation(let q, let o, let c) = $0 { (q, o, c) } else { nil } }
    }
    /// The `didAddOperation` callbacks.
    public var procedureQueueDidAddOperation: [OperationCheckType] {
        allCallbacks.compactMap { if case .didAddOperation(let q, let o, let c) = $0 { (q, o, c) } else { nil } }
    }
    /// The `didFinishOperation` callbacks.
    public var procedureQueueDidFinishOperation: [OperationFinishType] {
        allCallbacks.compactMap { if case .didFinishOperation(let q, let o) = $0 { (q, o) } else { nil } }
    }
    /// The `willAddProcedure` callbacks.
    public var procedureQueueWillAddProcedure: [ProcedureCheckType] {
        allCallbacks.compactMap { if case .willAddProcedure(let q, let p, let c) = $0 { (q, p, c) } else { nil } }
    }
    /// The `didAddProcedure` callbacks.
    public var procedureQueueDidAddProcedure: [ProcedureCheckType] {
        allCallbacks.compactMap { if case .didAddProcedure(let q, let p, let c) = $0 { (q, p, c) } else { nil } }
    }
    /// The `willFinishProcedure` callbacks.
    public var procedureQueueWillFinishProcedure: [ProcedureFinishType] {
        allCallbacks.compactMap { if case .willFinishProcedure(let q, let p, let e) = $0 { (q, p, e) } else { nil } }
    }
    /// The `didFinishProcedure` callbacks.
    public var procedureQueueDidFinishProcedure: [ProcedureFinishType] {
        allCallbacks.compactMap { if case .didFinishProcedure(let q, let p, let e) = $0 { (q, p, e) } else { nil } }
    }

    private func record(_ callback: CallbackKind) {
        callbacks.append(callback)
        callbackBlock(callback)
    }

    /// Records the callback.
    public func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation, context: (any Sendable)?)
    {
        record(.willAddOperation(queue, operation, context))
    }

    /// Records the callback.
    public func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation, context: (any Sendable)?)
    {
        record(.didAddOperation(queue, operation, context))
    }

    /// Records the callback.
    public func procedureQueue(_ queue: ProcedureQueue, didFinishOperation operation: Operation) {
        record(.didFinishOperation(queue, operation))
    }

    /// Records the callback.
    public func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?)
    {
        record(.willAddProcedure(queue, procedure, context))
    }

    /// Records the callback.
    public func procedureQueue(_ queue: ProcedureQueue, didAddProcedure procedure: Procedure, context: (any Sendable)?)
    {
        record(.didAddProcedure(queue, procedure, context))
    }

    /// Records the callback.
    public func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        record(.willFinishProcedure(queue, procedure, errors))
    }

    /// Records the callback.
    public func procedureQueue(
        _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        record(.didFinishProcedure(queue, procedure, errors))
    }
}
