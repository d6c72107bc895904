import Foundation

/// The closure of an observer added with one of the `add…BlockObserver` methods (without a synchronizer),
/// stored without a generic wrapper: the procedure's type is restored inside the closure, which the method
/// built knowing it.
enum ObserverBlock: Sendable {
    case willExecute(@Sendable (Procedure, PendingEvent) -> Void)
    case didExecute(@Sendable (Procedure) -> Void)
    case didCancel(@Sendable (Procedure, [any Error]) -> Void)
    case willAdd(@Sendable (Procedure, Operation) -> Void)
    case didAdd(@Sendable (Procedure, Operation) -> Void)
    case willFinish(@Sendable (Procedure, [any Error], PendingEvent) -> Void)
    case didFinish(@Sendable (Procedure, [any Error]) -> Void)

    /// The one event this block is for.
    var kind: ObserverEventKinds {
        switch self {
        case .willExecute: .willExecute
        case .didExecute: .didExecute
        case .didCancel: .didCancel
        case .willAdd: .willAdd
        case .didAdd: .didAdd
        case .willFinish: .willFinish
        case .didFinish: .didFinish
        }
    }

    /// Calls the closure if `event` is the one it is for.
    func send(_ event: ObserverEvent, to procedure: Procedure) {
        switch (self, event) {
        case (.willExecute(let block), .willExecute(let pending)): block(procedure, pending)
        case (.didExecute(let block), .didExecute): block(procedure)
        case (.didCancel(let block), .didCancel(let errors)): block(procedure, errors)
        case (.willAdd(let block), .willAdd(let operation, _)): block(procedure, operation)
        case (.didAdd(let block), .didAdd(let operation)): block(procedure, operation)
        case (.willFinish(let block), .willFinish(let errors, let pending)): block(procedure, errors, pending)
        case (.didFinish(let block), .didFinish(let errors)): block(procedure, errors)
        default: break
        }
    }
}

/// Which observer events somebody attached wants; a "will" phase nobody wants is skipped (no token is made).
struct ObserverEventKinds: OptionSet {
    let rawValue: UInt8

    static let didAttach = ObserverEventKinds(rawValue: 1 << 0)
    static let willExecute = ObserverEventKinds(rawValue: 1 << 1)
    static let didExecute = ObserverEventKinds(rawValue: 1 << 2)
    static let didCancel = ObserverEventKinds(rawValue: 1 << 3)
    static let willAdd = ObserverEventKinds(rawValue: 1 << 4)
    static let didAdd = ObserverEventKinds(rawValue: 1 << 5)
    static let willFinish = ObserverEventKinds(rawValue: 1 << 6)
    static let didFinish = ObserverEventKinds(rawValue: 1 << 7)
    static let all = ObserverEventKinds(rawValue: .max)
}

// MARK: - Typed blocks

// The `add…BlockObserver` methods take closures whose first parameter is the procedure's own type `P`. Storing
// them as closures over `Procedure` would normally mean wrapping each in another closure (an allocation per
// observer). Instead the closure is reinterpreted: a parameter whose type is a class-constrained generic
// parameter is passed exactly like a class reference (one guaranteed reference), so `(P, …) -> Void` and
// `(Procedure, …) -> Void` have the same representation. Each closure travels inside a one-field struct so that
// the compiler never re-abstracts it on the way through `unsafeBitCast` (a bare closure passed as a generic value
// would be). Sound because the block is only ever called with the procedure it was attached to, which is a `P`.
// `ObserverTests` checks every shape with a subclass reading its own stored properties.

private struct Typed1<P: Procedure> { let block: @Sendable (P) -> Void }
private struct Erased1 { let block: @Sendable (Procedure) -> Void }
private struct TypedPending<P: Procedure> { let block: @Sendable (P, PendingEvent) -> Void }
private struct ErasedPending { let block: @Sendable (Procedure, PendingEvent) -> Void }
private struct TypedErrors<P: Procedure> { let block: @Sendable (P, [any Error]) -> Void }
private struct ErasedErrors { let block: @Sendable (Procedure, [any Error]) -> Void }
private struct TypedOperation<P: Procedure> { let block: @Sendable (P, Operation) -> Void }
private struct ErasedOperation { let block: @Sendable (Procedure, Operation) -> Void }
private struct TypedErrorsPending<P: Procedure> { let block: @Sendable (P, [any Error], PendingEvent) -> Void }
private struct ErasedErrorsPending { let block: @Sendable (Procedure, [any Error], PendingEvent) -> Void }

extension ObserverBlock {
    static func willExecute<P: Procedure>(typed block: @escaping @Sendable (P, PendingEvent) -> Void) -> Self {
        .willExecute(unsafeBitCast(TypedPending(block: block), to: ErasedPending.self).block)
    }

    static func didExecute<P: Procedure>(typed block: @escaping @Sendable (P) -> Void) -> Self {
        .didExecute(unsafeBitCast(Typed1(block: block), to: Erased1.self).block)
    }

    static func didCancel<P: Procedure>(typed block: @escaping @Sendable (P, [any Error]) -> Void) -> Self {
        .didCancel(unsafeBitCast(TypedErrors(block: block), to: ErasedErrors.self).block)
    }

    static func willAdd<P: Procedure>(typed block: @escaping @Sendable (P, Operation) -> Void) -> Self {
        .willAdd(unsafeBitCast(TypedOperation(block: block), to: ErasedOperation.self).block)
    }

    static func didAdd<P: Procedure>(typed block: @escaping @Sendable (P, Operation) -> Void) -> Self {
        .didAdd(unsafeBitCast(TypedOperation(block: block), to: ErasedOperation.self).block)
    }

    static func willFinish<P: Procedure>(
        typed block: @escaping @Sendable (P, [any Error], PendingEvent) -> Void
    ) -> Self {
        .willFinish(unsafeBitCast(TypedErrorsPending(block: block), to: ErasedErrorsPending.self).block)
    }

    static func didFinish<P: Procedure>(typed block: @escaping @Sendable (P, [any Error]) -> Void) -> Self {
        .didFinish(unsafeBitCast(TypedErrors(block: block), to: ErasedErrors.self).block)
    }
}
