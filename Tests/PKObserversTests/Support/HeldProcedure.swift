import Foundation
import PKCore
import PKTesting

/// A procedure that starts executing, signals `started`, and finishes only when told to: by `release()`, or by
/// being cancelled unless it was made to ignore cancellation.
final class HeldProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: its own state is immutable (the semaphore is thread-safe).

    let started = DispatchSemaphore(value: 0)
    private let ignoresCancellation: Bool

    init(name: String = "Held", ignoresCancellation: Bool = false) {
        self.ignoresCancellation = ignoresCancellation
        super.init(disableAutomaticFinishing: true)
        self.name = name
    }

    override func execute() {
        started.signal()
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if !ignoresCancellation { finish() }
    }

    /// Finishes it, without errors.
    func release() {
        finish()
    }

    /// Waits (with the hang timeout) until `execute()` has run.
    func waitUntilStarted() -> Bool {
        started.wait(timeout: .now() + hangTimeout) == .success
    }
}

/// Whether `errors` holds a `timedOut` error with `delay`.
func containsTimeout(_ errors: [any Error], delay: Delay) -> Bool {
    errors.contains { ($0 as? ProcedureKitError)?.context == .timedOut(delay) }
}

/// Whether `errors` holds any `timedOut` error.
func containsAnyTimeout(_ errors: [any Error]) -> Bool {
    errors.contains {
        if case .timedOut = ($0 as? ProcedureKitError)?.context { return true }
        return false
    }
}
