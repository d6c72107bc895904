import Foundation

/// The closure of an observer added with one of the `add…BlockObserver` methods, stored without a generic
/// wrapper (see "Typed blocks" below); a synchronizer, if any, is kept beside it by `AnyProcedureObserver`.
@usableFromInline
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
package struct ObserverEventKinds: OptionSet, Sendable {
    package let rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    package static let didAttach = ObserverEventKinds(rawValue: 1 << 0)
    package static let willExecute = ObserverEventKinds(rawValue: 1 << 1)
    package static let didExecute = ObserverEventKinds(rawValue: 1 << 2)
    package static let didCancel = ObserverEventKinds(rawValue: 1 << 3)
    package static let willAdd = ObserverEventKinds(rawValue: 1 << 4)
    package static let didAdd = ObserverEventKinds(rawValue: 1 << 5)
    package static let willFinish = ObserverEventKinds(rawValue: 1 << 6)
    package static let didFinish = ObserverEventKinds(rawValue: 1 << 7)
    package static let all = ObserverEventKinds(rawValue: .max)
}

/// A framework observer that names the events it implements, so its procedure skips the rest: above all, no
/// pending-event token for a "will" phase nobody waits on. Package-only: a user's ``ProcedureObserver`` may
/// implement any event, so it gets them all. An observer still hears every event its procedure has for another
/// observer; naming only lets the procedure skip an event nobody named.
///
/// PERF(W12): a TimeoutObserver on every procedure made a will-finish token for each.
package protocol EventSelectingObserver: ProcedureObserver {
    /// The events this observer implements, read once, when it is attached.
    var observedEvents: ObserverEventKinds { get }
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
//
// The `add…BlockObserver` methods and these factories are `@inlinable`, so they are specialised in the caller's
// module, where the procedure type is known: no generic metadata lookup or existential handling per observer.

extension ObserverBlock {
    // The one-field carriers: a typed one (generic over the procedure type) and its erased twin with the same
    // layout.
    @usableFromInline
    struct Typed1<P: Procedure> {
        @usableFromInline let block: @Sendable (P) -> Void
        @usableFromInline init(block: @escaping @Sendable (P) -> Void) { self.block = block }
    }
    @usableFromInline
    struct Erased1 {
        @usableFromInline let block: @Sendable (Procedure) -> Void
        @usableFromInline init(block: @escaping @Sendable (Procedure) -> Void) { self.block = block }
    }
    @usableFromInline
    struct TypedPending<P: Procedure> {
        @usableFromInline let block: @Sendable (P, PendingEvent) -> Void
        @usableFromInline init(block: @escaping @Sendable (P, PendingEvent) -> Void) { self.block = block }
    }
    @usableFromInline
    struct ErasedPending {
        @usableFromInline let block: @Sendable (Procedure, PendingEvent) -> Void
        @usableFromInline init(block: @escaping @Sendable (Procedure, PendingEvent) -> Void) { self.block = block }
    }
    @usableFromInline
    struct TypedErrors<P: Procedure> {
        @usableFromInline let block: @Sendable (P, [any Error]) -> Void
        @usableFromInline init(block: @escaping @Sendable (P, [any Error]) -> Void) { self.block = block }
    }
    @usableFromInline
    struct ErasedErrors {
        @usableFromInline let block: @Sendable (Procedure, [any Error]) -> Void
        @usableFromInline init(block: @escaping @Sendable (Procedure, [any Error]) -> Void) { self.block = block }
    }
    @usableFromInline
    struct TypedOperation<P: Procedure> {
        @usableFromInline let block: @Sendable (P, Operation) -> Void
        @usableFromInline init(block: @escaping @Sendable (P, Operation) -> Void) { self.block = block }
    }
    @usableFromInline
    struct ErasedOperation {
        @usableFromInline let block: @Sendable (Procedure, Operation) -> Void
        @usableFromInline init(block: @escaping @Sendable (Procedure, Operation) -> Void) { self.block = block }
    }
    @usableFromInline
    struct TypedErrorsPending<P: Procedure> {
        @usableFromInline let block: @Sendable (P, [any Error], PendingEvent) -> Void
        @usableFromInline init(block: @escaping @Sendable (P, [any Error], PendingEvent) -> Void) { self.block = block }
    }
    @usableFromInline
    struct ErasedErrorsPending {
        @usableFromInline let block: @Sendable (Procedure, [any Error], PendingEvent) -> Void
        @usableFromInline init(block: @escaping @Sendable (Procedure, [any Error], PendingEvent) -> Void) {
            self.block = block
        }
    }
}

extension ObserverBlock {
    @inlinable
    static func willExecute<P: Procedure>(typed block: @escaping @Sendable (P, PendingEvent) -> Void) -> Self {
        .willExecute(unsafeBitCast(TypedPending(block: block), to: ErasedPending.self).block)
    }

    @inlinable
    static func didExecute<P: Procedure>(typed block: @escaping @Sendable (P) -> Void) -> Self {
        .didExecute(unsafeBitCast(Typed1(block: block), to: Erased1.self).block)
    }

    @inlinable
    static func didCancel<P: Procedure>(typed block: @escaping @Sendable (P, [any Error]) -> Void) -> Self {
        .didCancel(unsafeBitCast(TypedErrors(block: block), to: ErasedErrors.self).block)
    }

    @inlinable
    static func willAdd<P: Procedure>(typed block: @escaping @Sendable (P, Operation) -> Void) -> Self {
        .willAdd(unsafeBitCast(TypedOperation(block: block), to: ErasedOperation.self).block)
    }

    @inlinable
    static func didAdd<P: Procedure>(typed block: @escaping @Sendable (P, Operation) -> Void) -> Self {
        .didAdd(unsafeBitCast(TypedOperation(block: block), to: ErasedOperation.self).block)
    }

    @inlinable
    static func willFinish<P: Procedure>(
        typed block: @escaping @Sendable (P, [any Error], PendingEvent) -> Void
    ) -> Self {
        .willFinish(unsafeBitCast(TypedErrorsPending(block: block), to: ErasedErrorsPending.self).block)
    }

    @inlinable
    static func didFinish<P: Procedure>(typed block: @escaping @Sendable (P, [any Error]) -> Void) -> Self {
        .didFinish(unsafeBitCast(TypedErrors(block: block), to: ErasedErrors.self).block)
    }
}
