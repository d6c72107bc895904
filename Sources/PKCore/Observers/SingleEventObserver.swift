import Foundation

/// The observer behind the `add…BlockObserver` methods: one closure for one event, kept small so that many of
/// them per procedure stay cheap to store and to call.
@usableFromInline
struct SingleEventObserver<P: Procedure>: ProcedureObserver {
    @usableFromInline typealias Procedure = P

    @usableFromInline
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
    @usableFromInline let eventQueue: (any ObserverSynchronizer)?

    @usableFromInline
    init(block: Block, eventQueue: (any ObserverSynchronizer)?) {
        self.block = block
        self.eventQueue = eventQueue
    }

    @usableFromInline func will(execute procedure: P, pendingExecute: PendingExecuteEvent) {
        if case .willExecute(let block) = block { block(procedure, pendingExecute) }
    }

    @usableFromInline func did(execute procedure: P) {
        if case .didExecute(let block) = block { block(procedure) }
    }

    @usableFromInline func did(cancel procedure: P, withErrors errors: [any Error]) {
        if case .didCancel(let block) = block { block(procedure, errors) }
    }

    @usableFromInline func procedure(_ procedure: P, willAdd newOperation: Operation) {
        if case .willAdd(let block) = block { block(procedure, newOperation) }
    }

    @usableFromInline func procedure(_ procedure: P, didAdd newOperation: Operation) {
        if case .didAdd(let block) = block { block(procedure, newOperation) }
    }

    @usableFromInline func will(finish procedure: P, withErrors errors: [any Error], pendingFinish: PendingFinishEvent)
    {
        if case .willFinish(let block) = block { block(procedure, errors, pendingFinish) }
    }

    @usableFromInline func did(finish procedure: P, withErrors errors: [any Error]) {
        if case .didFinish(let block) = block { block(procedure, errors) }
    }
}
