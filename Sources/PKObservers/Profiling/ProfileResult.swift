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
    /// When the procedure was about to execute (its WillExecute event), or `nil` when it never executed (it was
    /// cancelled before starting). ProcedureKit's was not optional: it reported no result at all in that case.
    public let started: TimeInterval?
    /// When the procedure was cancelled (its DidCancel event), or `nil` when it was not. ProcedureKit declared this
    /// but never recorded it.
    public let cancelled: TimeInterval?
    /// When the procedure finished (its DidFinish event). Always set in a result a reporter receives; optional, as
    /// in ProcedureKit.
    public let finished: TimeInterval?
    /// The results of the procedures this one added (produced operations, a group's children), in the order they
    /// were added.
    public let children: [ProfileResult]

    /// Creates a result; profilers do this for you (this initialiser is for testing reporters).
    public init(
        identity: Procedure.Identity, created: TimeInterval, attached: TimeInterval, started: TimeInterval?,
        cancelled: TimeInterval?, finished: TimeInterval?, children: [ProfileResult]
    ) {
        self.identity = identity
        self.created = created
        self.attached = attached
        self.started = started
        self.cancelled = cancelled
        self.finished = finished
        self.children = children
    }
}
