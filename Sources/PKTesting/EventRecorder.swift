import Foundation
import Synchronization

/// An observer that records every callback it receives, in order, and detects overlapping callbacks.
///
/// Attach one recorder to one procedure or share it between many; each callback is recorded with the
/// procedure's name and identity. A procedure promises that its callbacks never run concurrently, so the
/// recorder keeps a per-procedure count of callbacks in progress and sets ``didOverlap`` if one begins while
/// another of the same procedure is still running. Pass a `spin` to keep each callback open a little longer
/// (busy-waiting, not sleeping), which makes an overlap more likely to be caught.
///
/// Callbacks are recorded on whichever thread the procedure delivers them; every member is thread-safe.
public final class EventRecorder: ProcedureObserver {

    /// The kinds of callback an observer receives.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `didAttach(to:)`.
        case didAttach
        /// `will(execute:pendingExecute:)`.
        case willExecute
        /// `did(execute:)`.
        case didExecute
        /// `did(cancel:withErrors:)`.
        case didCancel
        /// `procedure(_:willAdd:pendingAddOperation:)`.
        case willAdd
        /// `procedure(_:didAdd:)`.
        case didAdd
        /// `will(finish:withErrors:pendingFinish:)`.
        case willFinish
        /// `did(finish:withErrors:)`.
        case didFinish

        /// The raw name, such as `didFinish`.
        public var description: String { rawValue }
    }

    /// One recorded callback.
    public enum Event: Sendable, Hashable, CustomStringConvertible {
        /// `didAttach(to:)` for the named procedure.
        case didAttach(String)
        /// `will(execute:pendingExecute:)` for the named procedure.
        case willExecute(String)
        /// `did(execute:)` for the named procedure.
        case didExecute(String)
        /// `did(cancel:withErrors:)` for the named procedure.
        case didCancel(String)
        /// `procedure(_:willAdd:…)` for the named procedure.
        case willAdd(String)
        /// `procedure(_:didAdd:)` for the named procedure.
        case didAdd(String)
        /// `will(finish:withErrors:pendingFinish:)` for the named procedure.
        case willFinish(String)
        /// `did(finish:withErrors:)` for the named procedure.
        case didFinish(String)

        /// Builds the event of `kind` for `procedureName`.
        public init(_ kind: Kind, _ procedureName: String) {
            switch kind {
            case .didAttach: self = .didAttach(procedureName)
            case .willExecute: self = .willExecute(procedureName)
            case .didExecute: self = .didExecute(procedureName)
            case .didCancel: self = .didCancel(procedureName)
            case .willAdd: self = .willAdd(procedureName)
            case .didAdd: self = .didAdd(procedureName)
            case .willFinish: self = .willFinish(procedureName)
            case .didFinish: self = .didFinish(procedureName)
            }
        }

        /// Which callback this was.
        public var kind: Kind {
            switch self {
            case .didAttach: .didAttach
            case .willExecute: .willExecute
            case .didExecute: .didExecute
            case .didCancel: .didCancel
            case .willAdd: .willAdd
            case .didAdd: .didAdd
            case .willFinish: .willFinish
            case .didFinish: .didFinish
            }
        }

        /// The name of the procedure it was for.
        public var procedureName: String {
            switch self {
            case .didAttach(let name), .willExecute(let name), .didExecute(let name), .didCancel(let name),
                .willAdd(let name), .didAdd(let name), .willFinish(let name), .didFinish(let name):
                name
            }
        }

        /// `didFinish(name)`.
        public var description: String { "\(kind)(\(procedureName))" }
    }

    private struct Entry {
        let procedure: ObjectIdentifier
        let event: Event
    }

    private struct State {
        var entries: [Entry] = []
        var inProgress: [ObjectIdentifier: Int] = [:]
        var overlaps: [String] = []
    }

    private let state = PKMutex(State())
    private let spin: Duration

    /// Creates a recorder.
    ///
    /// - Parameter spin: How long each callback busy-waits before returning, to widen the window in which an
    ///   overlapping callback would be detected. Zero (the default) returns at once.
    public init(spin: Duration = .zero) {
        self.spin = spin
    }

    // MARK: - Reading

    /// Every recorded callback, in the order the callbacks began.
    public var events: [Event] { state.withLock { $0.entries.map(\.event) } }

    /// The callbacks recorded for `procedure` (by identity), in order.
    public func events(for procedure: Procedure) -> [Event] {
        let id = ObjectIdentifier(procedure)
        return state.withLock { $0.entries.filter { $0.procedure == id }.map(\.event) }
    }

    /// The kinds of callback recorded for `procedure` (by identity), in order.
    public func kinds(for procedure: Procedure) -> [Kind] {
        events(for: procedure).map(\.kind)
    }

    /// The callbacks recorded for procedures named `procedureName`, in order.
    public func events(named procedureName: String) -> [Event] {
        state.withLock { $0.entries.filter { $0.event.procedureName == procedureName }.map(\.event) }
    }

    /// How many callbacks of `kind` were recorded, for every procedure.
    public func count(of kind: Kind) -> Int {
        state.withLock { $0.entries.reduce(0) { $0 + ($1.event.kind == kind ? 1 : 0) } }
    }

    /// How many callbacks of `kind` were recorded for `procedure` (by identity).
    public func count(of kind: Kind, for procedure: Procedure) -> Int {
        let id = ObjectIdentifier(procedure)
        return state.withLock {
            $0.entries.reduce(0) { $0 + ($1.procedure == id && $1.event.kind == kind ? 1 : 0) }
        }
    }

    /// `true` if a callback for a procedure began while another callback for the same procedure was running.
    public var didOverlap: Bool { state.withLock { !$0.overlaps.isEmpty } }

    /// A description of each overlap detected, such as `didFinish(P) began during another callback of P`.
    public var overlaps: [String] { state.withLock { $0.overlaps } }

    // MARK: - Recording

    private func record(_ kind: Kind, _ procedure: Procedure) {
        let id = ObjectIdentifier(procedure)
        let event = Event(kind, procedure.procedureName)
        state.withLock { state in
            let depth = state.inProgress[id, default: 0] + 1
            state.inProgress[id] = depth
            if depth > 1 {
                state.overlaps.append("\(event) began during another callback of \(procedure.procedureName)")
            }
            state.entries.append(Entry(procedure: id, event: event))
        }
        if spin > .zero {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: spin)
            while clock.now < deadline {}
        }
        state.withLock { state in
            let depth = state.inProgress[id, default: 1] - 1
            state.inProgress[id] = depth > 0 ? depth : nil
        }
    }

    // MARK: - ProcedureObserver

    /// Records ``Kind/didAttach``.
    public func didAttach(to procedure: Procedure) { record(.didAttach, procedure) }

    /// Records ``Kind/willExecute``.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        record(.willExecute, procedure)
    }

    /// Records ``Kind/didExecute``.
    public func did(execute procedure: Procedure) { record(.didExecute, procedure) }

    /// Records ``Kind/didCancel``.
    public func did(cancel procedure: Procedure, withErrors errors: [any Error]) { record(.didCancel, procedure) }

    /// Records ``Kind/willAdd``.
    public func procedure(
        _ procedure: Procedure, willAdd newOperation: Operation, pendingAddOperation: PendingAddOperationEvent
    ) {
        record(.willAdd, procedure)
    }

    /// Records ``Kind/didAdd``.
    public func procedure(_ procedure: Procedure, didAdd newOperation: Operation) { record(.didAdd, procedure) }

    /// Records ``Kind/willFinish``.
    public func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        record(.willFinish, procedure)
    }

    /// Records ``Kind/didFinish``.
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) { record(.didFinish, procedure) }
}
