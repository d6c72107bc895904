import Synchronization

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
    private let onRelease: @Sendable () -> Void

    init(kind: Kind, procedure: Procedure, onRelease: @escaping @Sendable () -> Void) {
        self.kind = kind
        self.procedure = procedure
        self.onRelease = onRelease
    }

    deinit {
        onRelease()
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

/// Decides who runs a "will" phase's continuation: the phase itself (inline) when every token reference was
/// released during it, or the thread releasing the last reference afterwards.
final class PhaseGate: Sendable {
    private static let inPhase: UInt8 = 0
    private static let ended: UInt8 = 1
    private static let released: UInt8 = 2
    private let state = Atomic<UInt8>(PhaseGate.inPhase)

    /// Called as the last reference goes; `true` when the phase is still running and will continue inline.
    func releasedDuringPhase() -> Bool {
        state.compareExchange(expected: Self.inPhase, desired: Self.released, ordering: .acquiringAndReleasing)
            .exchanged
    }

    /// Called when the phase has delivered the token; `true` when it was already released (continue inline).
    func endPhase() -> Bool {
        !state.compareExchange(expected: Self.inPhase, desired: Self.ended, ordering: .acquiringAndReleasing)
            .exchanged
    }
}
