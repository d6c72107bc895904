/// A token handed to "will" observers that holds the coming event open while anyone references it.
///
/// While a reference to a `PendingEvent` exists, the event it stands for (execute, finish or adding an
/// operation) does not happen. Keep a reference in an escaping closure to delay the event until asynchronous
/// preparation is done; drop it to let the event proceed. You cannot create one yourself.
///
/// Thread-safe. The event proceeds on whichever thread releases the last reference.
public final class PendingEvent: Sendable, CustomStringConvertible {

    /// Which event is pending.
    public enum Kind: Sendable, Equatable {
        /// The procedure's `execute()`.
        case execute
        /// The procedure moving to finished.
        case finish
        /// An operation being added to a queue.
        case addOperation
    }

    /// Which event is pending.
    public let kind: Kind
    private let procedure: Procedure
    /// What the procedure does once the event may happen.
    private let continuation: EventContextStep

    init(kind: Kind, procedure: Procedure, continuation: EventContextStep) {
        self.kind = kind
        self.procedure = procedure
        self.continuation = continuation
    }

    // The last reference going is the public signal that the event may proceed, so the deinit reports that one
    // event (the phase's `WillPhaseMachine.tokenReleased`) and the procedure performs the action it returns.
    deinit {
        procedure.pendingEventReleased(ObjectIdentifier(self), continuation: continuation)
    }

    /// Runs `block` now; the event is guaranteed to happen after it returns.
    public func doBeforeEvent(_ block: () throws -> Void) rethrows {
        try withExtendedLifetime(self) { try block() }
    }

    /// Marks a point that is guaranteed to come before the event.
    public func doThisBeforeEvent() {
        withExtendedLifetime(self) {}
    }

    /// `PendingEvent(execute) for <name>`.
    public var description: String { "PendingEvent(\(kind)) for \(procedure.procedureName)" }
}

/// The token given to `will(execute:pendingExecute:)`.
public typealias PendingExecuteEvent = PendingEvent
/// The token given to `will(finish:withErrors:pendingFinish:)`.
public typealias PendingFinishEvent = PendingEvent
/// The token given to `procedure(_:willAdd:pendingAddOperation:)`.
public typealias PendingAddOperationEvent = PendingEvent
