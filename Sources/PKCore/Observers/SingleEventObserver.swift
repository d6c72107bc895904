import Foundation

/// The observer behind the `add…BlockObserver` methods: one closure for one event, kept small so that many of
/// them per procedure stay cheap to store and to call.
struct SingleEventObserver<P: Procedure>: ProcedureObserver {
    typealias Procedure = P

    enum Block: Sendable {
        case willExecute(@Sendable (P, PendingExecuteEvent) -> Void)
        case didExecute(@Sendable (P) -> Void)
        case didCancel(@Sendable (P, [any Error]) -> Void)
        case willAdd(@Sendable (P, Operation) -> Void)
        case didAdd(@Sendable (P, Operation) -> Void)
        case willFinish(@Sendable (P, [any Error], PendingFinishEvent) -> Void)
        case didFinish(@Sendable (P, [any Error]) -> Void)
    }

    let block: Block
    let eventQueue: (any ObserverSynchronizer)?

    func will(execute procedure: P, pendingExecute: PendingExecuteEvent) {
        if case .willExecute(let block) = block { block(procedure, pendingExecute) }
    }

    func did(execute procedure: P) {
        if case .didExecute(let block) = block { block(procedure) }
    }

    func did(cancel procedure: P, withErrors errors: [any Error]) {
        if case .didCancel(let block) = block { block(procedure, errors) }
    }

    func procedure(_ procedure: P, willAdd newOperation: Operation) {
        if case .willAdd(let block) = block { block(procedure, newOperation) }
    }

    func procedure(_ procedure: P, didAdd newOperation: Operation) {
        if case .didAdd(let block) = block { block(procedure, newOperation) }
    }

    func will(finish procedure: P, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        if case .willFinish(let block) = block { block(procedure, errors, pendingFinish) }
    }

    func did(finish procedure: P, withErrors errors: [any Error]) {
        if case .didFinish(let block) = block { block(procedure, errors) }
    }
}
