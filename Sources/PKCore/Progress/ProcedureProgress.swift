/// How far a procedure, a group or a queue has got: a fraction, the units it counts in when it has them, and an
/// optional message.
///
/// A procedure reports its own with ``Procedure/reportProgress(completed:of:message:)`` or
/// ``Procedure/reportProgress(fractionCompleted:message:)``; a group, a retry, a repeat, a batch and a queue roll up
/// their children's. Read it with ``Procedure/procedureProgress``, or watch it with a ``ProgressMonitor``.
///
/// A finished procedure's progress is complete, whether it succeeded, failed or was cancelled: progress says how
/// much of the work is over, not how much of it went well.
public struct ProcedureProgress: Sendable, Hashable, CustomStringConvertible {
    /// The fraction done, from 0 to 1.
    public var fractionCompleted: Double
    /// The units done, when the progress counts in units (otherwise 0).
    public var completedUnitCount: Int64
    /// The units in all, when the progress counts in units (otherwise 0). A roll-up's total is the sum of its
    /// children's weights (see ``ProgressMonitor``), so it may grow as children are added or report.
    public var totalUnitCount: Int64
    /// The latest message reported (by the procedure, or by the child that reported last, for a roll-up).
    public var message: String?
    /// `true` once the procedure has finished (never for a queue, which can always take more work).
    public var isFinished: Bool

    /// Creates a progress value.
    public init(
        fractionCompleted: Double, completedUnitCount: Int64 = 0, totalUnitCount: Int64 = 0,
        message: String? = nil, isFinished: Bool = false
    ) {
        self.fractionCompleted = fractionCompleted.isNaN ? 0 : Swift.min(Swift.max(fractionCompleted, 0), 1)
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
        self.message = message
        self.isFinished = isFinished
    }

    /// Nothing reported, not finished.
    public static let notStarted = ProcedureProgress(fractionCompleted: 0)

    /// `true` when the progress counts in units (``totalUnitCount`` is above zero).
    public var hasUnits: Bool { totalUnitCount > 0 }

    /// `42%`, `42% (21/50)` with units, then the message if any.
    public var description: String {
        let fraction = fractionCompleted.isFinite ? Swift.min(Swift.max(fractionCompleted, 0), 1) : 0
        var text = "\(Int((fraction * 100).rounded(.down)))%"
        if hasUnits { text += " (\(completedUnitCount)/\(totalUnitCount))" }
        if let message { text += " \(message)" }
        if isFinished { text += " finished" }
        return text
    }
}
