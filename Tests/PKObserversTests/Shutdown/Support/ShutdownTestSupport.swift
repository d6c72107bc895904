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

/// The error the tests' failing parts fail with; it prints as "connection lost".
struct ConnectionLost: Error, CustomStringConvertible {
    var description: String { "connection lost" }
}

/// Participants' stops for tests: each records when it begins and ends, and can be held until the test releases
/// it, so that a test sees the order of the stops without any timing.
final class StopLog: Sendable {

    /// How a stop made by ``stop(_:until:throwing:)`` behaves once it has begun.
    enum Hold: Sendable {
        /// Returns at once.
        case none
        /// Returns when the test calls ``release(_:)``, ignoring cancellation.
        case released
        /// Returns when the test calls ``release(_:)`` or its Task is cancelled.
        case releasedOrCancelled
    }

    private enum Gate: Sendable {
        case waiting(CheckedContinuation<Void, Never>)
        case open
    }

    private let state = PKMutex((entries: [String](), gates: [String: Gate]()))

    /// What happened so far: `"begin <name>"`, `"cancelled <name>"` (the stop saw its Task cancelled) and
    /// `"end <name>"`, in order.
    var entries: [String] { state.withLock { $0.entries } }

    /// A stop named `name` that behaves as `hold` says, then throws `error` if given.
    func stop(_ name: String, until hold: Hold = .none, throwing error: (any Error)? = nil)
        -> @Sendable () async throws -> Void
    {
        { [self] in
            append("begin \(name)")
            switch hold {
            case .none:
                break
            case .released:
                await withTaskCancellationHandler {
                    await waitForRelease(name)
                } onCancel: {
                    self.append("cancelled \(name)")
                }
            case .releasedOrCancelled:
                await withTaskCancellationHandler {
                    await waitForRelease(name)
                } onCancel: {
                    self.append("cancelled \(name)")
                    self.release(name)
                }
            }
            append("end \(name)")
            if let error { throw error }
        }
    }

    /// Lets the stop named `name` return: now if it is waiting, as soon as it waits otherwise.
    func release(_ name: String) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.gates[name] = .open }
            if case .waiting(let continuation) = state.gates[name] { return continuation }
            return nil
        }
        continuation?.resume()
    }

    func append(_ entry: String) {
        state.withLock { $0.entries.append(entry) }
    }

    private func waitForRelease(_ name: String) async {
        await withCheckedContinuation { continuation in
            let released = state.withLock { state -> Bool in
                if case .open = state.gates[name] { return true }
                state.gates[name] = .waiting(continuation)
                return false
            }
            if released { continuation.resume() }
        }
    }
}
