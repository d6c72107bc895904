/// A summary of where a procedure is and how it ended.
public enum ProcedureStatus: String, Sendable, CustomStringConvertible {
    /// Not yet executing: created, enqueued, or waiting for dependencies.
    case pending
    /// Executing (or finishing).
    case executing
    /// Cancelled (finished or not).
    case cancelled
    /// Finished with errors, not cancelled.
    case failed
    /// Finished without errors and not cancelled.
    case finished

    /// The raw name.
    public var description: String { rawValue }
}
