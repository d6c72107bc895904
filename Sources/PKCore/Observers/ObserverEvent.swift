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

/// A type-erased observer: delivers events to a concrete ``ProcedureObserver`` whose procedure type was checked
/// once, when it was attached.
struct AnyProcedureObserver: Sendable {
    private let deliver: @Sendable (ObserverEvent, Procedure) -> Void

    init<O: ProcedureObserver>(_ observer: O) {
        let synchronizer = observer.eventQueue
        deliver = { event, procedure in
            // The procedure's type was checked in `addObserver`, so the cast cannot fail.
            let typed = unsafeDowncast(procedure, to: O.Procedure.self)
            let call = {
                switch event {
                case .didAttach: observer.didAttach(to: typed)
                case .willExecute(let pending): observer.will(execute: typed, pendingExecute: pending)
                case .didExecute: observer.did(execute: typed)
                case .didCancel(let errors): observer.did(cancel: typed, withErrors: errors)
                case .willAdd(let operation, let pending):
                    observer.procedure(typed, willAdd: operation, pendingAddOperation: pending)
                case .didAdd(let operation): observer.procedure(typed, didAdd: operation)
                case .willFinish(let errors, let pending):
                    observer.will(finish: typed, withErrors: errors, pendingFinish: pending)
                case .didFinish(let errors): observer.did(finish: typed, withErrors: errors)
                }
            }
            if let synchronizer, (synchronizer as? Procedure) !== procedure {
                synchronizer.synchronize(call)
            } else {
                call()
            }
        }
    }

    func send(_ event: ObserverEvent, to procedure: Procedure) {
        deliver(event, procedure)
    }
}
