import Foundation
import PKCore

/// What a ``ProcedureProfiler`` measured for one procedure, with the results of the procedures it added.
///
/// Times are in seconds. ``created`` is absolute (seconds since 00:00:00 UTC on 1 January 2001, as
/// `CFAbsoluteTime` and `Date.timeIntervalSinceReferenceDate`); every other time is relative to the moment the
/// profiler was created. A child's times are relative to its own profiler, created when its parent was about to
/// add it: add `child.created - parent.created` to place them on the parent's timeline.
public struct ProfileResult: Sendable, Equatable {
    /// The profiled procedure, with its name when the profiler was attached.
    public let identity: Procedure.Identity
    /// When the profiler was created (absolute).
    public let created: TimeInterval
    /// When the profiler was attached to the procedure (the `didAttach` callback).
    public let attached: TimeInterval
    /// When the procedure was about to execute (its WillExecute event). For a procedure that never executed (it
    /// was cancelled before starting), the time it finished, so that it ran for no time; ``didExecute`` tells the
    /// two apart. A `TimeInterval`, as in ProcedureKit, which reported no result at all for such a procedure.
    public let started: TimeInterval
    /// Whether the procedure executed: `false` when it was cancelled before starting, and ``started`` is then its
    /// finishing time.
    public let didExecute: Bool
    /// When the procedure was cancelled (its DidCancel event), or `nil` when it was not. ProcedureKit declared this
    /// but never recorded it.
    public let cancelled: TimeInterval?
    /// When the procedure finished (its DidFinish event). Always set in a result a reporter receives; optional, as
    /// in ProcedureKit.
    public let finished: TimeInterval?
    /// The results of the procedures this one added (produced operations, a group's children), in the order they
    /// were added.
    public let children: [ProfileResult]

    /// Creates a result; profilers do this for you (this initialiser is for testing reporters). A `nil` `started`
    /// makes a result for a procedure that never executed: ``started`` is then `finished` (or `attached`).
    public init(
        identity: Procedure.Identity, created: TimeInterval, attached: TimeInterval, started: TimeInterval?,
        cancelled: TimeInterval?, finished: TimeInterval?, children: [ProfileResult]
    ) {
        self.identity = identity
        self.created = created
        self.attached = attached
        self.started = started ?? finished ?? attached
        self.didExecute = started != nil
        self.cancelled = cancelled
        self.finished = finished
        self.children = children
    }
}
