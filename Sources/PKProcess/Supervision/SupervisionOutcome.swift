import Foundation

/// How a child's supervision ended, for ``ProcessProcedure`` to finish with.
enum SupervisionOutcome: Sendable {
    /// Cancelled before it was launched.
    case notLaunched
    /// `posix_spawn` failed (or a descriptor it needed could not be had).
    case launchFailed(ProcessProcedure.Error)
    /// The child ended, but was reaped by someone else, so its status is unknown: `waitpid`'s `errno`.
    case statusUnavailable(errno: Int32)
    /// The child ended with `status` and `reason` and was reaped; what was read of its output.
    case terminated(status: Int32, reason: Process.TerminationReason, output: CollectedOutput, error: CollectedOutput)
}

/// What was captured of one stream.
struct CollectedOutput: Sendable {
    var data = Data()
    var droppedBytes = 0
    var captureLimit: Int?
    var standardErrorTail: String?
}
