import Foundation

/// One observer callback to deliver, with its arguments.
enum ObserverCallback {
    case didAttach
    case willExecute(PendingEvent)
    case didExecute
    case didCancel([any Error])
    case willAdd(Operation, PendingEvent)
    case didAdd(Operation)
    case willFinish([any Error], PendingEvent)
    case didFinish([any Error])

    /// The kind of callback this is.
    var kind: ObserverEventKinds {
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
}

/// A type-erased observer: a block from an `add…BlockObserver` method (possibly run inside a synchronizer), or
/// any ``ProcedureObserver`` whose procedure type was checked once, when it was attached.
struct AnyProcedureObserver: Sendable {
    private enum Storage {
        case block(ObserverBlock)
        case synchronizedBlock(SynchronizedBlock)
        case observer(@Sendable (ObserverCallback, Procedure) -> Void)
    }

    /// A block that runs inside a synchronizer (boxed, so the common unsynchronized block stays small).
    private final class SynchronizedBlock: Sendable {
        let block: ObserverBlock
        let synchronizer: any ObserverSynchronizer

        init(block: ObserverBlock, synchronizer: any ObserverSynchronizer) {
            self.block = block
            self.synchronizer = synchronizer
        }
    }

    private let storage: Storage
    /// What an `EventSelectingObserver` named (`.all` for any other ``ProcedureObserver``).
    private let observerKinds: ObserverEventKinds

    /// The events this observer wants: one for a block; for a ``ProcedureObserver``, those it names if it is an
    /// `EventSelectingObserver`, otherwise all of them.
    var kinds: ObserverEventKinds {
        switch storage {
        case .block(let block): block.kind
        case .synchronizedBlock(let box): box.block.kind
        case .observer: observerKinds
        }
    }

    init(_ block: ObserverBlock, synchronizedWith synchronizer: (any ObserverSynchronizer)? = nil) {
        if let synchronizer {
            storage = .synchronizedBlock(SynchronizedBlock(block: block, synchronizer: synchronizer))
        } else {
            storage = .block(block)
        }
        observerKinds = .all
    }

    init<O: ProcedureObserver>(_ observer: O) {
        // PERF(W12): casting the metatype, not the value, puts no copy of the observer in an existential box.
        if let selecting = O.self as? any EventSelectingObserver.Type {
            observerKinds = selecting.observedEvents(of: observer)
        } else {
            observerKinds = .all
        }
        if let synchronizer = observer.eventQueue {
            storage = .observer { event, procedure in
                // The procedure's type was checked in `addObserver`, so the cast cannot fail.
                // PERF(W12, W13): unchecked in release builds (checked in debug), once per event per observer.
                let typed = unsafeDowncast(procedure, to: O.Procedure.self)
                Self.run(in: synchronizer, for: procedure) { Self.dispatch(event, to: observer, typed) }
            }
        } else {
            storage = .observer { event, procedure in
                Self.dispatch(event, to: observer, unsafeDowncast(procedure, to: O.Procedure.self))
            }
        }
    }

    private static func dispatch<O: ProcedureObserver>(
        _ event: ObserverCallback, to observer: O, _ procedure: O.Procedure
    ) {
        switch event {
        case .didAttach: observer.didAttach(to: procedure)
        case .willExecute(let pending): observer.will(execute: procedure, pendingExecute: pending)
        case .didExecute: observer.did(execute: procedure)
        case .didCancel(let errors): observer.did(cancel: procedure, withErrors: errors)
        case .willAdd(let operation, let pending):
            observer.procedure(procedure, willAdd: operation, pendingAddOperation: pending)
        case .didAdd(let operation): observer.procedure(procedure, didAdd: operation)
        case .willFinish(let errors, let pending):
            observer.will(finish: procedure, withErrors: errors, pendingFinish: pending)
        case .didFinish(let errors): observer.did(finish: procedure, withErrors: errors)
        }
    }

    func send(_ event: ObserverCallback, to procedure: Procedure) {
        switch storage {
        case .block(let block): block.send(event, to: procedure)
        case .synchronizedBlock(let box):
            guard box.block.kind == event.kind else { return }
            Self.run(in: box.synchronizer, for: procedure) { box.block.send(event, to: procedure) }
        case .observer(let deliver): deliver(event, procedure)
        }
    }

    /// Runs `body` inside `synchronizer`, or at once when the synchronizer is the procedure itself (its own
    /// events already hold its context).
    private static func run(
        in synchronizer: any ObserverSynchronizer, for procedure: Procedure, _ body: () -> Void
    ) {
        if (synchronizer as? Procedure) === procedure {
            body()
        } else {
            synchronizer.synchronizeObserverCallback(body)
        }
    }
}
