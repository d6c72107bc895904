/// The state of an ``OutcomeChannel``: outcomes not yet taken, the consumers waiting for one, and whether the
/// channel has ended. Not thread-safe: the channel keeps it behind its mutex, and performs the actions its events
/// return after unlocking.
///
/// ```
///   open ──(every procedure delivered, buffer emptied)──▶ drained
///     │
///     └──(consumer cancelled, or sequence dropped)──▶ terminated
/// ```
///
/// `next` while open returns a buffered outcome, or suspends; once drained or terminated it returns `nil`.
struct OutcomeChannelState<Element> {
    /// Outcomes delivered and not yet taken, oldest first.
    private var buffer = FIFO<Element>()
    /// Consumers suspended in `next`, oldest first.
    private var waiters = FIFO<CheckedContinuation<Element?, Never>>()
    /// Procedures whose outcome has not been delivered yet.
    private(set) var undelivered: Int
    /// The consumer went away: outcomes still to come are dropped, and `next` returns `nil`.
    private(set) var isTerminated = false

    init(expecting count: Int) {
        undelivered = count
    }

    /// What to do after an outcome was delivered.
    enum DeliverAction {
        /// Nothing: it was buffered, or dropped after termination.
        case none
        /// Resume this consumer with the outcome.
        case resume(CheckedContinuation<Element?, Never>, Element)
        /// Resume this consumer with the outcome and the others with `nil`: it was the last one.
        case resumeLast(CheckedContinuation<Element?, Never>, Element, others: [CheckedContinuation<Element?, Never>])
    }

    /// Event: a procedure's outcome is known.
    mutating func deliver(_ element: Element) -> DeliverAction {
        undelivered -= 1
        guard !isTerminated else { return .none }
        guard let first = waiters.popFirst() else {
            buffer.append(element)
            return .none
        }
        if undelivered == 0 {
            return .resumeLast(first, element, others: takeWaiters())
        }
        return .resume(first, element)
    }

    /// What `next` does.
    enum NextAction {
        /// Return this outcome at once.
        case element(Element)
        /// Return `nil` at once: everything was taken, or the channel was terminated.
        case end
        /// The continuation was kept; it is resumed by a later delivery or termination.
        case suspended
    }

    /// Event: a consumer asks for the next outcome; `continuation` is kept when there is none yet.
    /// The next element if one is buffered, `.end` if none ever will be; `nil` when the consumer must wait.
    mutating func poll() -> NextAction? {
        if let element = buffer.popFirst() { return .element(element) }
        if isTerminated || undelivered == 0 { return .end }
        return nil
    }

    mutating func next(_ continuation: CheckedContinuation<Element?, Never>) -> NextAction {
        if let element = buffer.popFirst() { return .element(element) }
        if isTerminated || undelivered == 0 { return .end }
        waiters.append(continuation)
        return .suspended
    }

    /// Event: the consumer is gone (its Task was cancelled, or every iterator and the sequence were dropped).
    /// Returns the consumers to resume with `nil`, or `nil` when the channel had already ended.
    mutating func terminate() -> [CheckedContinuation<Element?, Never>]? {
        guard !isTerminated else { return nil }
        isTerminated = true
        buffer = FIFO()
        return takeWaiters()
    }

    private mutating func takeWaiters() -> [CheckedContinuation<Element?, Never>] {
        var taken: [CheckedContinuation<Element?, Never>] = []
        while let waiter = waiters.popFirst() { taken.append(waiter) }
        return taken
    }
}
