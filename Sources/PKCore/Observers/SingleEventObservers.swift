import Foundation

// ProcedureKit's single-event block observers: each wraps one closure for one event, with ProcedureKit's
// `didAttachToProcedure` and `synchronizedWith:`. ``BlockObserver`` takes any combination of closures; the
// `add…BlockObserver` methods are the short way to attach either. Errors are `[any Error]`, as everywhere in PKCore.

/// An observer that runs a closure when the procedure is about to execute (WillExecute), with the pending-execute token: ProcedureKit's `WillExecuteObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct WillExecuteObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P, PendingExecuteEvent) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func will(execute procedure: P, pendingExecute: PendingExecuteEvent) { block(procedure, pendingExecute) }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .willExecute : [.willExecute, .didAttach]
    }
}

/// An observer that runs a closure when the procedure's `execute()` has returned (DidExecute): ProcedureKit's `DidExecuteObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct DidExecuteObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func did(execute procedure: P) { block(procedure) }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .didExecute : [.didExecute, .didAttach]
    }
}

/// An observer that runs a closure when the procedure was cancelled (DidCancel), with the cancel's errors: ProcedureKit's `DidCancelObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct DidCancelObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P, [any Error]) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func did(cancel procedure: P, withErrors errors: [any Error]) { block(procedure, errors) }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .didCancel : [.didCancel, .didAttach]
    }
}

/// An observer that runs a closure when the procedure is about to add an operation (WillAdd): ProcedureKit's `WillAddOperationObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct WillAddOperationObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P, Operation) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func procedure(_ procedure: P, willAdd newOperation: Operation) { block(procedure, newOperation) }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .willAdd : [.willAdd, .didAttach]
    }
}

/// An observer that runs a closure when the procedure has added an operation (DidAdd): ProcedureKit's `DidAddOperationObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct DidAddOperationObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P, Operation) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func procedure(_ procedure: P, didAdd newOperation: Operation) { block(procedure, newOperation) }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .didAdd : [.didAdd, .didAttach]
    }
}

/// An observer that runs a closure when the procedure is about to finish (WillFinish), with its errors and the pending-finish token: ProcedureKit's `WillFinishObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct WillFinishObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P, [any Error], PendingFinishEvent) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func will(finish procedure: P, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        block(procedure, errors, pendingFinish)
    }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .willFinish : [.willFinish, .didAttach]
    }
}

/// An observer that runs a closure when the procedure has finished (DidFinish), with its errors: ProcedureKit's `DidFinishObserver`.
///
/// The closure runs under the guarantees of any ``ProcedureObserver``: never concurrently with the procedure's other
/// events, and in the synchronizer's context when one is given.
public struct DidFinishObserver<P: Procedure>: ProcedureObserver, EventSelectingObserver {
    /// The type of procedure observed.
    public typealias Procedure = P
    /// The closure's type.
    public typealias Block = @Sendable (P, [any Error]) -> Void

    /// Called when the observer is attached to a procedure.
    public var didAttachToProcedure: (@Sendable (P) -> Void)?
    /// Where the closure runs; `nil` for the procedure's own event context.
    public let eventQueue: (any ObserverSynchronizer)?
    private let block: Block

    /// Creates an observer running `block`, in `synchronizer`'s context when one is given.
    public init(synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil, block: @escaping Block) {
        self.eventQueue = synchronizer
        self.block = block
    }

    /// Calls ``didAttachToProcedure``.
    public func didAttach(to procedure: P) { didAttachToProcedure?(procedure) }

    /// Calls the block.
    public func did(finish procedure: P, withErrors errors: [any Error]) { block(procedure, errors) }

    /// Its one event, and attachment when ``didAttachToProcedure`` is set.
    package var observedEvents: ObserverEventKinds {
        didAttachToProcedure == nil ? .didFinish : [.didFinish, .didAttach]
    }
}
