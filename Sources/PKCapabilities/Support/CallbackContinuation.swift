/// Turns a capability's completion handler into an `async throws` call that the calling Task can cancel.
///
/// The continuation is resumed exactly once, by whichever comes first: the completion handler or the
/// cancellation of the calling Task (`CancellationError`). A completion that arrives later is ignored, and the
/// handler holds the gate weakly, so a capability that keeps it forever keeps nothing else alive.
enum CallbackContinuation {

    /// Calls `start` with a completion handler and suspends until the handler is called or the Task is
    /// cancelled. Throws `CancellationError` at once, without calling `start`, when the Task is already cancelled.
    static func value<Value: Sendable>(
        _ start: (@escaping @Sendable (Value) -> Void) -> Void
    ) async throws -> Value {
        try Task.checkCancellation()
        let gate = Gate<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                gate.install(continuation)
                start { [weak gate] value in gate?.resume(.success(value)) }
            }
        } onCancel: {
            gate.resume(.failure(CancellationError()))
        }
    }

    /// A continuation resumed once; a result that arrives before the continuation is installed is kept for it.
    private final class Gate<Value: Sendable>: Sendable {
        private enum State {
            case waiting
            case installed(CheckedContinuation<Value, any Error>)
            case early(Result<Value, any Error>)
            case resumed
        }

        private let state = PKMutex(State.waiting)

        func install(_ continuation: CheckedContinuation<Value, any Error>) {
            let early = state.withLock { state -> Result<Value, any Error>? in
                switch state {
                case .waiting:
                    state = .installed(continuation)
                    return nil
                case .early(let result):
                    state = .resumed
                    return result
                case .installed, .resumed:
                    preconditionFailure("CallbackContinuation installed twice (state \(state))")
                }
            }
            if let early { continuation.resume(with: early) }
        }

        func resume(_ result: Result<Value, any Error>) {
            let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                switch state {
                case .waiting:
                    state = .early(result)
                    return nil
                case .installed(let continuation):
                    state = .resumed
                    return continuation
                case .early, .resumed:
                    return nil
                }
            }
            continuation?.resume(with: result)
        }
    }
}
