/// Receives a ``ProcedureProfiler``'s result once the profiled procedure and every procedure it added have
/// finished.
///
/// Called once per profiler, on the thread that delivered the last event the result waited for (the procedure's
/// DidFinish, or the last child's), outside any lock. Implementations must be thread-safe: several profilers may
/// report at once.
public protocol ProcedureProfilerReporter: Sendable {
    /// Called once with the complete result.
    func finishedProfiling(withResult result: ProfileResult)
}
