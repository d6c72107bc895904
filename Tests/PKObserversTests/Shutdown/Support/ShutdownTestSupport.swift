import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// A coordinator of the test's own, driven by a `ManualClock`: a 10-second grace period and a 5-second
/// cancellation period that pass only when the test advances the clock.
func makeCoordinator(
    gracePeriod: Duration = .seconds(10), cancellationPeriod: Duration = .seconds(5),
    systemdNotifier: SystemdNotifier? = nil
) -> (ShutdownCoordinator, ManualClock) {
    let clock = ManualClock()
    let coordinator = ShutdownCoordinator(
        gracePeriod: gracePeriod, cancellationPeriod: cancellationPeriod, clock: clock, systemdNotifier: systemdNotifier
    )
    return (coordinator, clock)
}

/// Works until it is cancelled, then finishes at once.
final class UntilCancelledProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    init(name: String) {
        super.init()
        self.name = name
    }

    override func execute() {}

    override func procedureDidCancel(withErrors errors: [any Error]) {
        finish()
    }
}

/// Ignores cancellation and finishes only when the test calls ``release()`` (before or after it executes).
final class StubbornProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `gate` is guarded by its mutex.
    private let gate = PKMutex((executing: false, released: false))

    init(name: String) {
        super.init()
        self.name = name
    }

    override func execute() {
        let go = gate.withLock { gate -> Bool in
            gate.executing = true
            return gate.released
        }
        if go { finish() }
    }

    /// Lets the procedure finish: now if it is executing, as soon as it executes otherwise.
    func release() {
        let go = gate.withLock { gate -> Bool in
            gate.released = true
            return gate.executing
        }
        if go { finish() }
    }
}

/// The context of the `ProcedureKitError` a procedure was cancelled with, if any.
func shutdownContext(of procedure: Procedure) -> ProcedureKitError.Context? {
    procedure.errors.compactMap { ($0 as? ProcedureKitError)?.context }.first
}

/// Suspends until the coordinator's report is ready; records an issue and returns `nil` after `timeout` instead
/// of hanging.
func report(
    of coordinator: ShutdownCoordinator, timeout: TimeInterval = hangTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> ShutdownReport? {
    let report = await withTaskGroup(of: ShutdownReport?.self) { group in
        group.addTask { try? await coordinator.waitForShutdown() }
        group.addTask {
            try? await Task.sleep(for: .seconds(timeout))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    if report == nil { Issue.record("timed out waiting for the shutdown report", sourceLocation: sourceLocation) }
    return report
}

/// Suspends until `condition` holds, polling; records an issue and returns `false` after `timeout`.
@discardableResult
func eventually(
    _ what: String, timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @Sendable () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// Suspends until `procedure` has finished; records an issue and returns `false` after ``hangTimeout``.
@discardableResult
func finished(_ procedure: Procedure, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    let done = await waitForFinish(procedure, timeout: hangTimeout)
    if !done { Issue.record("\(procedure.procedureName) did not finish", sourceLocation: sourceLocation) }
    return done
}

/// Suspends until `procedure` is executing; records an issue and returns `false` after ``hangTimeout``.
@discardableResult
func executing(_ procedure: Procedure, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    await eventually("\(procedure.procedureName) executes", sourceLocation: sourceLocation) { procedure.isExecuting }
}
