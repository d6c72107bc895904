import Foundation

/// One observer callback to deliver, with its arguments.
enum ObserverEvent {
    case didAttach
    case willExecute(PendingEvent)
    case didExecute
    case didCancel([any Error])
    case willAdd(Operation, PendingEvent)
    case didAdd(Operation)
    case willFinish([any Error], PendingEvent)
    case didFinish([any Error])
}

/// A type-erased observer: a block from an `add…BlockObserver` method, or any ``ProcedureObserver`` whose
/// procedure type was checked once, when it was attached.
struct AnyProcedureObserver: Sendable {
    private enum Storage {
        case block(ObserverBlock)
        case observer(@Sendable (ObserverEvent, Procedure) -> Void)
    }

    private let storage: Storage

    /// The events this observer wants: one for a block, all of them for a ``ProcedureObserver``.
    var kinds: ObserverEventKinds {
        switch storage {
        case .block(let block): block.kind
        case .observer: .all
        }
    }

    init(_ block: ObserverBlock) {
        storage = .block(block)
    }

    init<O: ProcedureObserver>(_ observer: O) {
        if let synchronizer = observer.eventQueue {
            storage = .observer { event, procedure in
                // The procedure's type was checked in `addObserver`, so the cast cannot fail.
                let typed = unsafeDowncast(procedure, to: O.Procedure.self)
                if (synchronizer as? Procedure) === procedure {
                    Self.dispatch(event, to: observer, typed)
                } else {
                    synchronizer.synchronize { Self.dispatch(event, to: observer, typed) }
                }
            }
        } else {
            storage = .observer { event, procedure in
                Self.dispatch(event, to: observer, unsafeDowncast(procedure, to: O.Procedure.self))
            }
        }
    }

    private static func dispatch<O: ProcedureObserver>(_ event: ObserverEvent, to observer: O, _ procedure: O.Procedure)
    {
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

    func send(_ event: ObserverEvent, to procedure: Procedure) {
        switch storage {
        case .block(let block): block.send(event, to: procedure)
        case .observer(let deliver): deliver(event, procedure)
        }
    }
}
