import Foundation

/// An observer built from closures, one per event you care about.
///
/// Each closure receives the procedure typed as `P`, so it need not capture it. Closures run under the same
/// guarantees as any ``ProcedureObserver``: never concurrently with the procedure's other events.
public struct BlockObserver<P: Procedure>: ProcedureObserver {
    /// The type of procedure observed.
    public typealias Procedure = P

    /// Called when attached.
    public var didAttach: (@Sendable (P) -> Void)?
    /// Called before execute, with the pending-execute token.
    public var willExecute: (@Sendable (P, PendingExecuteEvent) -> Void)?
    /// Called after execute returns.
    public var didExecute: (@Sendable (P) -> Void)?
    /// Called after a cancel, with its errors.
    public var didCancel: (@Sendable (P, [any Error]) -> Void)?
    /// Called before the procedure adds an operation.
    public var willAdd: (@Sendable (P, Operation) -> Void)?
    /// Called after the procedure added an operation.
    public var didAdd: (@Sendable (P, Operation) -> Void)?
    /// Called before finishing, with the errors and the pending-finish token.
    public var willFinish: (@Sendable (P, [any Error], PendingFinishEvent) -> Void)?
    /// Called after finishing, with the errors.
    public var didFinish: (@Sendable (P, [any Error]) -> Void)?
    /// Where the closures run; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?

    /// Creates an observer from any combination of closures.
    public init(
        synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil,
        didAttach: (@Sendable (P) -> Void)? = nil,
        willExecute: (@Sendable (P, PendingExecuteEvent) -> Void)? = nil,
        didExecute: (@Sendable (P) -> Void)? = nil,
        didCancel: (@Sendable (P, [any Error]) -> Void)? = nil,
        willAdd: (@Sendable (P, Operation) -> Void)? = nil,
        didAdd: (@Sendable (P, Operation) -> Void)? = nil,
        willFinish: (@Sendable (P, [any Error], PendingFinishEvent) -> Void)? = nil,
        didFinish: (@Sendable (P, [any Error]) -> Void)? = nil
    ) {
        self.eventQueue = synchronizer
        self.didAttach = didAttach
        self.willExecute = willExecute
        self.didExecute = didExecute
        self.didCancel = didCancel
        self.willAdd = willAdd
        self.didAdd = didAdd
        self.willFinish = willFinish
        self.didFinish = didFinish
    }

    /// Calls the `didAttach` closure.
    public func didAttach(to procedure: P) { didAttach?(procedure) }
    /// Calls the `willExecute` closure.
    public func will(execute procedure: P, pendingExecute: PendingExecuteEvent) {
        willExecute?(procedure, pendingExecute)
    }
    /// Calls the `didExecute` closure.
    public func did(execute procedure: P) { didExecute?(procedure) }
    /// Calls the `didCancel` closure.
    public func did(cancel procedure: P, withErrors errors: [any Error]) { didCancel?(procedure, errors) }
    /// Calls the `willAdd` closure.
    public func procedure(_ procedure: P, willAdd newOperation: Operation) { willAdd?(procedure, newOperation) }
    /// Calls the `didAdd` closure.
    public func procedure(_ procedure: P, didAdd newOperation: Operation) { didAdd?(procedure, newOperation) }
    /// Calls the `willFinish` closure.
    public func will(finish procedure: P, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        willFinish?(procedure, errors, pendingFinish)
    }
    /// Calls the `didFinish` closure.
    public func did(finish procedure: P, withErrors errors: [any Error]) { didFinish?(procedure, errors) }
}

extension BlockObserver: EventSelectingObserver {
    /// The events it has a block for (PERF(W10): a BlockObserver for DidFinish alone, as waiters add, makes its
    /// procedure no will-execute or will-finish token).
    package var observedEvents: ObserverEventKinds {
        var kinds: ObserverEventKinds = []
        if didAttach != nil { kinds.insert(.didAttach) }
        if willExecute != nil { kinds.insert(.willExecute) }
        if didExecute != nil { kinds.insert(.didExecute) }
        if didCancel != nil { kinds.insert(.didCancel) }
        if willAdd != nil { kinds.insert(.willAdd) }
        if didAdd != nil { kinds.insert(.didAdd) }
        if willFinish != nil { kinds.insert(.willFinish) }
        if didFinish != nil { kinds.insert(.didFinish) }
        return kinds
    }
}
