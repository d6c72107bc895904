/// Carries finished procedures' outcomes to the consumers of a ``ProcedureOutcomes`` sequence.
///
/// Each procedure gets an ``OutcomeSlot`` registered as its dependent (the queue's own way of hearing that a
/// procedure finished, with no event-context step). Termination cancels the procedures not finished yet.
final class OutcomeChannel<P: Procedure, Value: Sendable>: Sendable {
    typealias Element = ProcedureOutcome<P, Value>

    private let state: PKMutex<OutcomeChannelState<Element>>
    /// The procedures, in the order given; read-only.
    let procedures: [P]
    private let read: @Sendable (P) -> Result<Value, any Error>

    init(procedures: [P], read: @escaping @Sendable (P) -> Result<Value, any Error>) {
        self.procedures = procedures
        self.read = read
        state = PKMutex(OutcomeChannelState(expecting: procedures.count))
    }

    /// Registers with every procedure; an already finished one is delivered at once.
    func listen() {
        for (index, procedure) in procedures.enumerated() {
            let slot = OutcomeSlot(channel: self, index: index)
            if !slot.register(asDependentOf: procedure) { slot.dependencyDidFinish() }
        }
    }

    /// The procedure at `index` has finished.
    func deliver(index: Int) {
        let procedure = procedures[index]
        let outcome = ProcedureOutcome(procedure: procedure, index: index, result: read(procedure))
        switch state.withLock({ $0.deliver(outcome) }) {
        case .none:
            break
        case .resume(let consumer, let outcome):
            consumer.resume(returning: outcome)
        case .resumeLast(let consumer, let outcome, let others):
            consumer.resume(returning: outcome)
            for other in others { other.resume(returning: nil) }
        }
    }

    /// The next outcome, or `nil` once every one was taken or the channel was terminated. Cancelling the calling
    /// Task terminates the channel.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                switch state.withLock({ $0.next(continuation) }) {
                case .element(let outcome): continuation.resume(returning: outcome)
                case .end: continuation.resume(returning: nil)
                case .suspended: break
                }
            }
        } onCancel: {
            terminate(fromCancellationHandler: true)
        }
    }

    /// Ends the channel: waiting consumers get `nil`, and every procedure not finished yet is cancelled with
    /// ``ProcedureKitError/taskCancelled()``.
    ///
    /// From a Task's cancellation handler only the accepting step of each cancel runs there (see
    /// `Procedure.cancelFromTaskCancellationHandler()`).
    func terminate(fromCancellationHandler: Bool) {
        guard let consumers = state.withLock({ $0.terminate() }) else { return }
        for consumer in consumers { consumer.resume(returning: nil) }
        for procedure in procedures where !procedure.isFinished {
            if fromCancellationHandler {
                procedure.cancelFromTaskCancellationHandler()
            } else {
                procedure.cancel(with: ProcedureKitError.taskCancelled())
            }
        }
    }
}

/// One procedure's place in an ``OutcomeChannel``: told when the procedure finishes.
final class OutcomeSlot<P: Procedure, Value: Sendable>: DependencyWaiter {
    private let channel: OutcomeChannel<P, Value>
    private let index: Int

    init(channel: OutcomeChannel<P, Value>, index: Int) {
        self.channel = channel
        self.index = index
    }

    func dependencyDidFinish() {
        channel.deliver(index: index)
    }
}

/// Lives as long as a ``ProcedureOutcomes`` sequence or one of its iterators: when the last of them goes, the
/// consumer is gone, and the channel is terminated.
final class OutcomeConsumerLifetime<P: Procedure, Value: Sendable>: Sendable {
    let channel: OutcomeChannel<P, Value>

    init(channel: OutcomeChannel<P, Value>) {
        self.channel = channel
    }

    deinit {
        channel.terminate(fromCancellationHandler: false)
    }
}
