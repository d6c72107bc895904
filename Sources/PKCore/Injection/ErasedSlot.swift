/// A pending input or output with its type erased: what PKCore's generic procedures store.
///
/// PERF(W26): unspecialised generic code asks the runtime for the metadata of every generic type it touches (a
/// hash-table search each time): to create, copy, switch over or destroy a `Pending<ProcedureResult<Output>>`, or
/// the mutex-guarded box it used to live in. PKCore's generic procedures always run unspecialised (the engine
/// calls their `execute()` through the vtable), so a `ResultProcedure` used to pay about ten such lookups in its
/// life, 20–25% of its cost. Stored as `any Sendable`, the value needs only `Output`'s own metadata, which the
/// instance carries: a small value fits the existential's inline buffer, and reading it back is one cast to the
/// exact type. The typed getters are `@inlinable`, so a caller that knows the type (the user's module) reads with
/// no lookup at all.
@usableFromInline
enum ErasedPending: Sendable {
    case pending
    /// An input's value, or an output's success.
    case success(any Sendable)
    /// An output's failure.
    case failure(any Error)
}

/// One procedure's erased input or output, behind its own lock, with the typed views its procedure exposes.
///
/// Thread-safe: every access takes the lock, and a replaced value is released after it.
@usableFromInline
struct ErasedSlot: ~Copyable, Sendable {
    private let mutex = PKMutex(ErasedPending.pending)

    init() {}

    /// The erased value as it is now.
    @usableFromInline
    var erased: ErasedPending { mutex.withLock { $0 } }

    /// Replaces the value; the old one is released outside the lock (it may hold a user's objects).
    func store(_ new: ErasedPending) {
        let replaced = mutex.withLock { replaceValue(&$0, with: new) }
        withExtendedLifetime(replaced) {}
    }

    /// The value as an output of type `Output`.
    @inlinable
    func output<Output>(as type: Output.Type) -> Pending<ProcedureResult<Output>> {
        switch erased {
        case .pending: .pending
        case .success(let value): .ready(.success(Self.cast(value, to: type)))
        case .failure(let error): .ready(.failure(error))
        }
    }

    /// Stores a typed output.
    func setOutput<Output: Sendable>(_ output: Pending<ProcedureResult<Output>>) {
        switch output {
        case .pending: store(.pending)
        case .ready(.success(let value)): store(.success(value))
        case .ready(.failure(let error)): store(.failure(error))
        }
    }

    /// The value as an input of type `Input`.
    @inlinable
    func input<Input>(as type: Input.Type) -> Pending<Input> {
        switch erased {
        case .pending: .pending
        case .success(let value): .ready(Self.cast(value, to: type))
        case .failure: .pending  // an input slot never holds a failure
        }
    }

    /// Stores a typed input.
    func setInput<Input: Sendable>(_ input: Pending<Input>) {
        switch input {
        case .pending: store(.pending)
        case .ready(let value): store(.success(value))
        }
    }

    /// `value` as the type it was stored as; only this slot's typed setters store, so the cast cannot fail.
    @inlinable
    static func cast<Value>(_ value: any Sendable, to type: Value.Type) -> Value {
        guard let typed = value as? Value else {
            preconditionFailure("an erased slot held a \(Swift.type(of: value)), not a \(Value.self)")
        }
        return typed
    }
}

extension Result where Success: Sendable, Failure == any Error {
    /// This result erased, for an ``ErasedSlot``.
    var erased: ErasedPending {
        switch self {
        case .success(let value): .success(value)
        case .failure(let error): .failure(error)
        }
    }
}

extension Procedure {
    /// Stores `output` in `slot`, then finishes: with the error when it is a failure (as
    /// `OutputProcedure.finish(withResult:)` does, without the typed detour).
    final func finish(storing output: ErasedPending, in slot: borrowing ErasedSlot) {
        slot.store(output)
        if case .failure(let error) = output {
            finish(with: error)
        } else {
            finish()
        }
    }
}
