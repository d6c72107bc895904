import Foundation

/// The protocol every ``Procedure`` conforms to; it carries the block-observer conveniences so their closures
/// receive the procedure typed as `Self`.
///
/// ```swift
/// override init() {
///     super.init()
///     addDidCancelBlockObserver { procedure, _ in
///         procedure.timer?.cancel()
///         procedure.finish()
///     }
/// }
/// ```
public protocol ProcedureProtocol: AnyObject, Sendable {}

extension ProcedureProtocol where Self: Procedure {

    /// Adds an observer whose `block` runs before `execute()`, with the pending-execute token.
    @inlinable
    public func addWillExecuteBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self, PendingExecuteEvent) -> Void
    ) {
        addObserver(block: .willExecute(typed: block), synchronizedWith: synchronizer)
    }

    /// Adds an observer whose `block` runs after `execute()` returns.
    @inlinable
    public func addDidExecuteBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self) -> Void
    ) {
        addObserver(block: .didExecute(typed: block), synchronizedWith: synchronizer)
    }

    /// Adds an observer whose `block` runs after the procedure is cancelled, with the cancel errors.
    @inlinable
    public func addDidCancelBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self, [any Error]) -> Void
    ) {
        addObserver(block: .didCancel(typed: block), synchronizedWith: synchronizer)
    }

    /// Adds an observer whose `block` runs before the procedure adds an operation to its queue.
    @inlinable
    public func addWillAddOperationBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self, Operation) -> Void
    ) {
        addObserver(block: .willAdd(typed: block), synchronizedWith: synchronizer)
    }

    /// Adds an observer whose `block` runs after the procedure added an operation to its queue.
    @inlinable
    public func addDidAddOperationBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self, Operation) -> Void
    ) {
        addObserver(block: .didAdd(typed: block), synchronizedWith: synchronizer)
    }

    /// Adds an observer whose `block` runs before the procedure finishes, with its errors and the token.
    @inlinable
    public func addWillFinishBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self, [any Error], PendingFinishEvent) -> Void
    ) {
        addObserver(block: .willFinish(typed: block), synchronizedWith: synchronizer)
    }

    /// Adds an observer whose `block` runs after the procedure finished, with its errors.
    @inlinable
    public func addDidFinishBlockObserver(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        block: @escaping @Sendable (Self, [any Error]) -> Void
    ) {
        addObserver(block: .didFinish(typed: block), synchronizedWith: synchronizer)
    }
}
