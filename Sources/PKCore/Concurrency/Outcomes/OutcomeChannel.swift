/// Carries the positions of finished procedures, in the order they finish, to the consumers of a
/// ``ProcedureOutcomes`` sequence, which reads each outcome as it takes it.
///
/// Each procedure gets an ``OutcomeSlot`` registered as its dependent (the queue's own way of hearing that a
/// procedure finished, with no event-context step). Termination cancels the procedures not finished yet.
///
// PERF(W19): not generic. Delivery runs on the queue's worker threads, from code the user's module does not
// specialize; generic state here cost a runtime metadata lookup per call.
final class OutcomeChannel: Sendable {
    private let state: PKMutex<OutcomeChannelState<Int>>
    /// The procedures, in the order given; read-only.
    let procedures: [Procedure]

    init(procedures: [Procedure]) {
        self.procedures = procedures
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
        switch state.withLock({ $0.deliver(index) }) {
        case .none:
            break
        case .resume(let consumer, let index):
            consumer.resume(returning: index)
        case .resumeLast(let consumer, let index, let others):
            consumer.resume(returning: index)
            for other in others { other.resume(returning: nil) }
        }
    }

    /// The position of the next procedure to finish, or `nil` once every one was taken or the channel was
    /// terminated. Cancelling the calling Task terminates the channel.
    func next() async -> Int? {
        // PERF(W19): an outcome already delivered is taken at once, without a continuation or a cancellation
        // handler. A cancelled consumer takes the slow path, whose handler ends the sequence as before.
        if !Task.isCancelled {
            switch state.withLock({ $0.poll() }) {
            case .element(let index)?: return index
            case .end?: return nil
            case .suspended?, nil: break
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
                switch state.withLock({ $0.next(continuation) }) {
                case .element(let index): continuation.resume(returning: index)
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
        let unfinished = procedures.lazy.filter { !$0.isFinished }
        if fromCancellationHandler {
            Procedure.cancelFromTaskCancellationHandler(unfinished)
        } else {
            for procedure in unfinished { procedure.cancel(with: ProcedureKitError.taskCancelled()) }
        }
    }
}

/// One procedure's place in an ``OutcomeChannel``: told when the procedure finishes.
final class OutcomeSlot: DependencyWaiter {
    private let channel: OutcomeChannel
    private let index: Int

    init(channel: OutcomeChannel, index: Int) {
        self.channel = channel
        self.index = index
    }

    func dependencyDidFinish() {
        channel.deliver(index: index)
    }
}

/// Lives as long as a ``ProcedureOutcomes`` sequence or one of its iterators: when the last of them goes, the
/// consumer is gone, and the channel is terminated.
final class OutcomeConsumerLifetime: Sendable {
    let channel: OutcomeChannel

    init(channel: OutcomeChannel) {
        self.channel = channel
    }

    deinit {
        channel.terminate(fromCancellationHandler: false)
    }
}
