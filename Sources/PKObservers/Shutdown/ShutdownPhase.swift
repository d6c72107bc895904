/// Where a ``ShutdownCoordinator`` is in its lifecycle.
///
/// The phases only move forward: `running` → `shuttingDown` → `cancellingStragglers` → `finished`, possibly
/// skipping the middle ones (a shutdown with nothing left to wait for finishes at once).
public enum ShutdownPhase: Sendable, Hashable, CustomStringConvertible {
    /// Shutdown has not been requested.
    case running
    /// Shutdown was requested and the grace period is running: handlers have been told, procedures that asked to
    /// be cancelled then have been, participants are being stopped one at a time, and the coordinator waits for
    /// every watched procedure to finish and every participant to stop.
    case shuttingDown
    /// The grace period expired (or was cut short by a signal): procedures that asked to be cancelled then have
    /// been, every participant's stop has begun and been cancelled, and the coordinator waits for the rest until
    /// the cancellation period ends.
    case cancellingStragglers
    /// The coordinator has stopped waiting and its ``ShutdownReport`` is ready.
    case finished

    /// The case's name, such as `"shuttingDown"`.
    public var description: String {
        switch self {
        case .running: "running"
        case .shuttingDown: "shuttingDown"
        case .cancellingStragglers: "cancellingStragglers"
        case .finished: "finished"
        }
    }
}
