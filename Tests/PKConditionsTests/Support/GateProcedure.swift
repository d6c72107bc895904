import Dispatch
import PKTesting

/// A procedure that, once executing, stays unfinished until ``open()`` is called, or until it is cancelled
/// (then it finishes at once). ``started`` is signalled when `execute()` runs.
final class GateProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `gate` is guarded by its PKMutex; `started` and `finishError` are immutable.

    /// Signalled once, when `execute()` begins.
    let started = DispatchSemaphore(value: 0)
    private let finishError: (any Error)?
    private let gate = PKMutex<(executing: Bool, open: Bool)>((false, false))

    init(name: String = "GateProcedure", error: (any Error)? = nil) {
        finishError = error
        super.init()
        self.name = name
    }

    var didExecute: Bool { gate.withLock { $0.executing } }

    override func execute() {
        let open = gate.withLock { gate -> Bool in
            gate.executing = true
            return gate.open
        }
        started.signal()
        if open || isCancelled { finish(with: finishError) }
    }

    /// Lets the procedure finish (at once if executing, otherwise as soon as it executes).
    func open() {
        let executing = gate.withLock { gate -> Bool in
            gate.open = true
            return gate.executing
        }
        if executing { finish(with: finishError) }
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if gate.withLock({ $0.executing }) { finish() }
    }
}
