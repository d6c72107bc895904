import Foundation
import PKCore

extension Procedure {

    /// Cancels this procedure with ``/PKCore/ProcedureKitError/timedOut(with:)`` if it is still running `duration`
    /// after it starts executing: a ``TimeoutObserver`` in one line. A zero or negative duration sets no limit.
    ///
    /// ```swift
    /// queue.add(procedure: download.timeout(after: .seconds(30)))
    /// ```
    @discardableResult
    public func timeout(after duration: Duration, clock: any ProcedureClock = SystemClock()) -> Self {
        addObserver(TimeoutObserver(by: duration, clock: clock))
        return self
    }
}

extension ProcedureQueue {

    /// Adds `procedure` with a time limit and waits for it to finish: `run(_:)` with a ``TimeoutObserver``. A procedure still running `timeout` after it starts executing is cancelled, and this
    /// throws ``/PKCore/ProcedureKitError/timedOut(with:)`` (once the procedure has finished).
    public func run<P: Procedure>(_ procedure: P, timeout: Duration, clock: any ProcedureClock = SystemClock())
        async throws
    {
        try await run(procedure.timeout(after: timeout, clock: clock))
    }

    /// Adds `procedure` with a time limit, waits for it to finish and returns its output (see
    /// `run(_:timeout:clock:)`).
    @discardableResult
    public func run<P: OutputProcedure>(
        _ procedure: P, timeout: Duration, clock: any ProcedureClock = SystemClock()
    ) async throws -> P.Output {
        try await run(procedure.timeout(after: timeout, clock: clock))
    }
}
