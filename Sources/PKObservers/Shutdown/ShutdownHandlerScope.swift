import Dispatch
import PKCore

/// One handler of ``ShutdownCoordinator/withShutdownHandler(isolation:operation:onShutdownRequested:)``, between the
/// request that calls it and the end of its scope: the handler is called at most once and never after its scope has
/// ended, and a scope that ends while its handler runs waits for the handler to return.
///
/// The coordinator hands the handler over to the requesting thread under its lock and calls it outside; the scope
/// may end in between, on another thread. Removing the listener from the coordinator covers the common case (not
/// handed over yet); this covers the rest.
final class ShutdownHandlerScope: Sendable {

    /// How a scope that ended while its handler was running is resumed.
    typealias Waiter = @Sendable () -> Void

    /// The lifecycle of one handler and its scope, as a value.
    struct StateMachine<Resume: Sendable>: Sendable {
        private enum State: Sendable {
            /// Neither the call nor the end of the scope has come.
            case armed
            /// The handler is running; the scope is open.
            case running
            /// The handler has returned; the scope is open.
            case called
            /// The scope has ended: the handler is not called any more.
            case ended
            /// The scope ended while the handler was running: resume it when the handler returns.
            case endingWhileRunning(Resume)
        }

        private var state = State.armed

        /// The request calls the handler: `true` when it is to run now, `false` when its scope has ended.
        mutating func callBegins() -> Bool {
            switch state {
            case .armed:
                state = .running
                return true
            case .ended:
                return false
            case .running, .called, .endingWhileRunning:
                preconditionFailure("ShutdownHandlerScope: the handler was called twice (\(state))")
            }
        }

        /// The handler returned; returns the ending scope to resume, if one waits.
        mutating func callReturned() -> Resume? {
            switch state {
            case .running:
                state = .called
                return nil
            case .endingWhileRunning(let resume):
                state = .ended
                return resume
            case .armed, .called, .ended:
                preconditionFailure("ShutdownHandlerScope: a call returned in state \(state)")
            }
        }

        /// The scope ends: `true` when it has ended now, `false` when the handler is running (end it again with a
        /// way to resume it).
        mutating func scopeEndsUnlessRunning() -> Bool {
            switch state {
            case .armed, .called:
                state = .ended
                return true
            case .running:
                return false
            case .ended, .endingWhileRunning:
                preconditionFailure("ShutdownHandlerScope: the scope ended twice (\(state))")
            }
        }

        /// The scope ends, resumed by `resume` if the handler is running: returns whether it must wait.
        mutating func scopeEnds(resume: Resume) -> Bool {
            switch state {
            case .armed, .called:
                state = .ended
                return false
            case .running:
                state = .endingWhileRunning(resume)
                return true
            case .ended, .endingWhileRunning:
                preconditionFailure("ShutdownHandlerScope: the scope ended twice (\(state))")
            }
        }
    }

    private let handler: @Sendable () -> Void
    // Never held while the handler runs or a waiting scope is resumed.
    private let machine = PKMutex(StateMachine<Waiter>())

    init(_ handler: @escaping @Sendable () -> Void) {
        self.handler = handler
    }

    /// Calls the handler, on this thread, unless its scope has ended.
    func call() {
        guard machine.withLock({ $0.callBegins() }) else { return }
        handler()
        machine.withLock { $0.callReturned() }?()
    }

    /// Ends the scope, suspending while the handler runs.
    func end() async {
        guard !machine.withLock({ $0.scopeEndsUnlessRunning() }) else { return }
        await withCheckedContinuation { continuation in
            let wait = machine.withLock { $0.scopeEnds(resume: { continuation.resume() }) }
            if !wait { continuation.resume() }
        }
    }

    /// Ends the scope, blocking this thread while the handler runs.
    func endBlocking() {
        guard !machine.withLock({ $0.scopeEndsUnlessRunning() }) else { return }
        let returned = DispatchSemaphore(value: 0)
        let wait = machine.withLock { $0.scopeEnds(resume: { returned.signal() }) }
        if wait { returned.wait() }
    }
}
