import Dispatch
import PKCore

/// Hands a value of the shutdown (the report, or the reason it was requested) to one suspended task, once:
/// whichever comes first of the value and the task's cancellation resumes it, and the other does nothing.
///
/// Either may come before the continuation is installed; it is then kept and delivered on installation.
final class ShutdownGate<Value: Sendable>: Sendable {
    private enum State: Sendable {
        case idle
        case waiting(CheckedContinuation<Value, any Error>)
        case resolvedEarly(Result<Value, CancellationError>)
        case done
    }

    private let state = PKMutex(State.idle)

    /// Installs the continuation to resume; resumes it at once if the outcome is already known.
    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let early = state.withLock { state -> Result<Value, CancellationError>? in
            switch state {
            case .idle:
                state = .waiting(continuation)
                return nil
            case .resolvedEarly(let result):
                state = .done
                return result
            case .waiting, .done:
                preconditionFailure("ShutdownGate: a second continuation was installed")
            }
        }
        if let early { continuation.resume(with: early.mapError { $0 }) }
    }

    /// Delivers the outcome; only the first one counts.
    func resolve(_ result: Result<Value, CancellationError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            switch state {
            case .idle:
                state = .resolvedEarly(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .resolvedEarly, .done:
                return nil
            }
        }
        continuation?.resume(with: result.mapError { $0 })
    }
}

/// Hands the shutdown report to one blocked thread.
final class ShutdownReportLatch: Sendable {
    private let report = PKMutex<ShutdownReport?>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    /// Keeps `report` and wakes the waiting thread; only the first report counts.
    func resolve(_ report: ShutdownReport) {
        let first = self.report.withLock { stored -> Bool in
            guard stored == nil else { return false }
            stored = report
            return true
        }
        if first { semaphore.signal() }
    }

    /// Blocks until ``resolve(_:)`` has been called, then returns the report.
    func wait() -> ShutdownReport {
        semaphore.wait()
        guard let report = report.withLock({ $0 }) else {
            preconditionFailure("ShutdownReportLatch: woken without a report")
        }
        return report
    }
}
