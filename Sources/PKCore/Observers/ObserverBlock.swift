import Foundation

/// The closure of an observer added with one of the `add…BlockObserver` methods, stored without a generic
/// observer type around it (see "Typed blocks" below); a synchronizer, if any, is kept beside it by
/// `AnyProcedureObserver`.
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
    func send(_ event: ObserverCallback, to procedure: Procedure) {
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
    /// The events this observer implements, read once, when it is attached. One that does not name did-attach may
    /// be attached without its `didAttach(to:)` being called.
    var observedEvents: ObserverEventKinds { get }
}

extension EventSelectingObserver {
    /// The ``observedEvents`` of `observer`, whose type is `Self` (found by casting `O.self`).
    static func observedEvents<O: ProcedureObserver>(of observer: O) -> ObserverEventKinds {
        unsafeBitCast(observer, to: Self.self).observedEvents
    }
}

// MARK: - Typed blocks

// The `add…BlockObserver` methods take closures whose first parameter is the procedure's own type `P`; each is
// stored wrapped in a closure over `Procedure` that casts back to `P` (a checked cast, which cannot fail: the
// block is only ever called with the procedure it was attached to, which is a `P`). The wrapper costs one small
// allocation per observer. Measured against reinterpreting the closure with `unsafeBitCast` (issue 16; W6, 8 block
// observers per procedure, 17 alternating release runs each on a shared two-core machine), the difference was
// within the noise: W6 per op 1.31–7.89 µs (median 3.29) reinterpreted, 1.39–4.23 µs (median 2.49) wrapped; W6/W1
// 1.07–3.90 (median 1.55) against 0.81–1.88 (median 1.39). So the safe form is kept.
//
// The `add…BlockObserver` methods and these factories are `@inlinable`, so they are specialised in the caller's
// module, where the procedure type is known: no generic metadata lookup or existential handling per observer.

extension ObserverBlock {
    @inlinable
    static func willExecute<P: Procedure>(typed block: @escaping @Sendable (P, PendingEvent) -> Void) -> Self {
        .willExecute({ block($0 as! P, $1) })
    }

    @inlinable
    static func didExecute<P: Procedure>(typed block: @escaping @Sendable (P) -> Void) -> Self {
        .didExecute({ block($0 as! P) })
    }

    @inlinable
    static func didCancel<P: Procedure>(typed block: @escaping @Sendable (P, [any Error]) -> Void) -> Self {
        .didCancel({ block($0 as! P, $1) })
    }

    @inlinable
    static func willAdd<P: Procedure>(typed block: @escaping @Sendable (P, Operation) -> Void) -> Self {
        .willAdd({ block($0 as! P, $1) })
    }

    @inlinable
    static func didAdd<P: Procedure>(typed block: @escaping @Sendable (P, Operation) -> Void) -> Self {
        .didAdd({ block($0 as! P, $1) })
    }

    @inlinable
    static func willFinish<P: Procedure>(
        typed block: @escaping @Sendable (P, [any Error], PendingEvent) -> Void
    ) -> Self {
        .willFinish({ block($0 as! P, $1, $2) })
    }

    @inlinable
    static func didFinish<P: Procedure>(typed block: @escaping @Sendable (P, [any Error]) -> Void) -> Self {
        .didFinish({ block($0 as! P, $1) })
    }
}
