/// Finished procedures, in the order they finish: the `AsyncSequence` ``ProcedureQueue/outcomes(of:)->ProcedureOutcomes<P,P.Output>`` returns.
///
/// ```swift
/// queue.maxConcurrentOperationCount = 4
/// for await outcome in queue.outcomes(of: fetches) {
///     switch outcome.result {
///     case .success(let page): pages[outcome.index] = page
///     case .failure(let error): log.warning("\(outcome.procedure.procedureName): \(error)")
///     }
/// }
/// ```
///
/// Each procedure's outcome is delivered once, as soon as it has finished (its DidFinish observers may still be
/// running), then the sequence ends. Outcomes that arrive before they are asked for are kept.
///
/// Stopping early cancels what is left: when the Task iterating is cancelled, or when the sequence and every
/// iterator made from it have been dropped (a `break` out of the loop), every procedure not finished yet is
/// cancelled with ``ProcedureKitError/taskCancelled()``, and `next()` returns `nil`. Iterate it once; iterators made
/// from one sequence share its outcomes, each delivered to one of them.
public struct ProcedureOutcomes<P: Procedure, Value: Sendable>: AsyncSequence, Sendable {
    /// An outcome.
    public typealias Element = ProcedureOutcome<P, Value>
    /// Iterating never throws: failures are in each outcome's ``ProcedureOutcome/result``.
    public typealias Failure = Never

    private let lifetime: OutcomeConsumerLifetime
    private let procedures: [P]
    private let read: @Sendable (P) -> Result<Value, any Error>

    init(channel: OutcomeChannel, procedures: [P], read: @escaping @Sendable (P) -> Result<Value, any Error>) {
        lifetime = OutcomeConsumerLifetime(channel: channel)
        self.procedures = procedures
        self.read = read
    }

    /// Makes the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// The outcome of the procedure at `index`, which has finished.
    private func outcome(at index: Int) -> Element {
        let procedure = procedures[index]
        return ProcedureOutcome(procedure: procedure, index: index, result: read(procedure))
    }

    /// Takes outcomes as procedures finish.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: ProcedureOutcomes

        init(sequence: ProcedureOutcomes) {
            self.sequence = sequence
        }

        /// The next procedure to finish, or `nil` when every one was delivered or the consumer stopped early.
        public mutating func next() async -> Element? {
            await sequence.lifetime.channel.next().map(sequence.outcome(at:))
        }

        /// The next procedure to finish; see ``next()``.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await sequence.lifetime.channel.next().map(sequence.outcome(at:))
        }
    }
}
