import Foundation

/// A group that runs operations one after another, waiting between them, until its iterator runs out or ``max``
/// operations have run.
///
/// ```swift
/// let poll = RepeatProcedure(max: 5, wait: .constant(10)) { FetchStatusProcedure() }
/// queue.add(procedure: poll)
/// ```
///
/// Each operation comes from an iterator (of ``RepeatProcedurePayload``s, or of operations paired with the waits of
/// a ``WaitStrategy`` or a ``Delay`` iterator) or from a closure returning `nil` to stop. The first is taken when
/// the repeat is created and starts when it executes. When an operation is about to finish, the next is taken, and
/// is added as a child after a ``DelayProcedure`` for its wait (measured on the repeat's ``clock``). ``count`` is
/// the number of operations taken so far, the first included; ``max`` caps it.
///
/// Errors: the repeat keeps going when an operation fails, and collects every child's errors, like a group: a
/// repeat whose first operation fails and second succeeds finishes with the first one's errors.
///
/// Threads: the iterator, the configure blocks and ``child(_:willFinishWithErrors:)`` run in the repeat's event
/// context, serialized with its other events. A closure passed as `body` is called there too.
///
/// Cancellation: cancelling the repeat cancels the running operation and any pending wait, and takes no further
/// operations; it finishes, cancelled, once the cancelled children have finished.
open class RepeatProcedure<T: Operation>: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the progress (count, current, configure block) is in `progress` and the iterator in
    // `source`, each guarded by its own PKMutex; `max` and `clock` are immutable; the superclass guards the rest.

    /// The repeat's payload type.
    public typealias Payload = RepeatProcedurePayload<T>

    struct Progress {
        var count = 0
        var current: T?
        var previous: T?
        /// The child whose finish makes the repeat take the next payload: the current operation if it is a
        /// procedure, otherwise a procedure that runs after it.
        var trigger: Procedure?
        var configure: (@Sendable (T) -> Void)?
    }

    let progress = PKMutex(Progress())
    /// The payloads. The iterator is taken out of the lock while it runs, so user code never runs under it;
    /// pulls happen in the event context, one at a time.
    private let source: PKMutex<PayloadSource<T>?>

    /// The most operations the repeat runs, the first included; `nil` for no limit.
    public let max: Int?

    /// The clock the waits between operations are measured on.
    public let clock: any ProcedureClock

    /// Creates a repeat taking its operations and waits from `iterator`.
    ///
    /// The first payload is taken now; its delay is not used. An iterator with no payloads (or `max` of zero)
    /// makes a repeat that finishes as soon as it executes.
    public init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, clock: any ProcedureClock = SystemClock(),
        iterator: some IteratorProtocol<Payload>
    ) {
        var iterator = iterator
        let first = (max ?? 1) > 0 ? iterator.next() : nil
        source = PKMutex(PayloadSource(iterator))
        self.max = max
        self.clock = clock
        super.init(dispatchQueue: dispatchQueue, operations: [])
        name = "Repeat<\(T.self)>"
        if let first {
            progress.withLock {
                $0.count = 1
                $0.current = first.operation
                $0.configure = first.configure
            }
        }
    }

    /// Creates a repeat of the operations of `iterator`, waiting between them as `wait` says.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, wait: WaitStrategy = .immediate,
        clock: any ProcedureClock = SystemClock(), iterator: some IteratorProtocol<T>
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, delay: wait.makeDelayIterator(), clock: clock, iterator: iterator)
    }

    /// Creates a repeat of the operations of `iterator`, waiting before each the next value of `delay`.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, delay: some IteratorProtocol<Delay>,
        clock: any ProcedureClock = SystemClock(), iterator: some IteratorProtocol<T>
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, clock: clock,
            iterator: PayloadIterator(operations: iterator, delays: delay))
    }

    /// Creates a repeat of the operations `body` returns, until it returns `nil` or `max` have run, waiting
    /// between them as `wait` says.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, wait: WaitStrategy = .immediate,
        clock: any ProcedureClock = SystemClock(), body: @escaping @Sendable () -> T?
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, wait: wait, clock: clock, iterator: ClosureIterator(body: body))
    }

    // MARK: - Progress

    /// The number of operations taken so far, the first included (so 1 once created, unless there were none).
    public final var count: Int { progress.withLock { $0.count } }

    /// The latest operation taken.
    public final var current: T? { progress.withLock { $0.current } }

    /// The operation before ``current``.
    public final var previous: T? { progress.withLock { $0.previous } }

    /// Adds `block` to run, after the current configure block, on each operation added from now on.
    public final func appendConfigureBlock(_ block: @escaping @Sendable (T) -> Void) {
        progress.withLock { progress in
            let existing = progress.configure
            progress.configure = { operation in
                existing?(operation)
                block(operation)
            }
        }
    }

    /// Replaces the configure block run on each operation added from now on.
    public final func replaceConfigureBlock(_ block: @escaping @Sendable (T) -> Void) {
        // The old block is released after the lock: it may hold the last reference to a user object.
        let replaced = progress.withLock { replaceValue(&$0.configure, with: block) }
        withExtendedLifetime(replaced) {}
    }

    // MARK: - Lifecycle

    /// Configures and adds the first operation, then starts the children. Subclasses must call `super`.
    open override func execute() {
        let (first, configure) = progress.withLock { ($0.current, $0.configure) }
        if let first, !isCancelled {
            configure?(first)
            add(first, delay: nil)
        }
        super.execute()
    }

    /// Called, in the repeat's event context, when a child procedure is about to finish. For the current
    /// operation it takes the next payload (unless the repeat is cancelled or done) before collecting the errors;
    /// subclasses that override it must call `super`.
    open override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        let current = progress.withLock { $0.trigger === child ? $0.current : nil }
        let collected: [any Error]
        if let current {
            collected = attemptWillFinish(current, withErrors: errors)
        } else {
            collected = otherChildWillFinish(child, withErrors: errors)
        }
        super.child(child, willFinishWithErrors: collected)
    }

    // MARK: - Progress

    /// A repeat's progress is its current attempt's: how many attempts there will be is not known in advance.
    override var progressMode: ProgressNodeState.Mode { .latest }

    /// The attempts count toward the repeat's progress; the waits between them do not.
    override func countsTowardProgress(_ child: Procedure) -> Bool { child is T }

    /// Watched late, a repeat follows its current attempt only (not one that is finishing).
    override func progressChildren() -> (finished: Int, children: [Procedure]) {
        let current = progress.withLock { $0.current }
        guard let attempt = current as? Procedure else { return (0, []) }
        return (0, [attempt])
    }

    /// The current operation is about to finish: returns the errors to collect. A repeat always goes on.
    func attemptWillFinish(_ attempt: T, withErrors errors: [any Error]) -> [any Error] {
        addNextOperation { $0 }
        return errors
    }

    /// Another child (a wait) is about to finish: returns the errors to collect.
    func otherChildWillFinish(_ child: Procedure, withErrors errors: [any Error]) -> [any Error] {
        errors
    }

    /// Takes the next payload, lets `adjust` change it or stop (`nil`), and adds it. Returns whether an
    /// operation was added. Called in the event context.
    @discardableResult
    final func addNextOperation(_ adjust: (Payload) -> Payload?) -> Bool {
        guard !isCancelled else { return false }
        if let max, count >= max { return false }
        guard let payload = nextPayload(), let payload = adjust(payload), !isCancelled else { return false }
        typealias Configure = @Sendable (T) -> Void
        let (configure, replaced) = progress.withLock { progress -> (Configure?, Configure?) in
            guard let replacement = payload.configure else { return (progress.configure, nil) }
            return (replacement, replaceValue(&progress.configure, with: replacement))
        }
        withExtendedLifetime(replaced) {}
        configure?(payload.operation)
        // The attempt before last usually loses its last reference here: it is moved out and released after the
        // lock, since its deinit (and whatever it holds) is user code.
        let released = progress.withLock { progress -> T? in
            progress.count += 1
            return replaceValue(&progress.previous, with: replaceValue(&progress.current, with: payload.operation))
        }
        withExtendedLifetime(released) {}
        add(payload.operation, delay: payload.delay)
        return true
    }

    private func nextPayload() -> Payload? {
        guard let taken = source.withLock({ $0.take() }) else { return nil }
        let payload = taken.next()
        source.withLock { $0 = taken }
        return payload
    }

    /// Adds `operation` as a child, after a wait of `delay`, with the procedure that marks its end.
    private func add(_ operation: T, delay: Delay?) {
        var children: [Operation] = []
        if let delay, needsWait(delay) {
            let wait = DelayProcedure(delay: delay, clock: clock)
            operation.addDependency(wait)
            children.append(wait)
        }
        children.append(operation)
        let trigger: Procedure
        if let procedure = operation as? Procedure {
            trigger = procedure
        } else {
            trigger = BlockProcedure {}
            trigger.name = "\(procedureName).didRun"
            trigger.addDependency(operation)
            children.append(trigger)
        }
        progress.withLock { $0.trigger = trigger }
        addChildren(children)
    }

    private func needsWait(_ delay: Delay) -> Bool {
        if case .by(let seconds) = delay { return seconds > 0 }
        return true
    }
}

/// A repeat's payload iterator, passed in and out of the repeat's `source` lock so that it runs outside it.
final class PayloadSource<T: Operation>: @unchecked Sendable {
    // @unchecked Sendable: `iterator` is only touched by whoever took this object out of the repeat's `source`
    // PKMutex (which then holds nil), so never by two threads at once.
    private var iterator: AnyIterator<RepeatProcedurePayload<T>>

    init(_ iterator: some IteratorProtocol<RepeatProcedurePayload<T>>) {
        self.iterator = AnyIterator(iterator)
    }

    func next() -> RepeatProcedurePayload<T>? {
        iterator.next()
    }
}
