import Foundation
import PKCore

/// The lifecycle of one ``ProcedureProfiler``: attached to a procedure, recording its events, waiting for its
/// children's results, reported.
///
/// A value type with no locks, clocks or callbacks: the profiler feeds it events with the times it read and
/// carries out the returned action outside its lock. Events are for the procedure named in them; events for any
/// other procedure (a profiler attached to a second procedure) are ignored. Repeated events (a profiler attached
/// twice to one procedure receives every event twice) keep the first time.
struct ProfilerStateMachine {

    /// What has been recorded so far for the profiled procedure.
    struct Recording: Equatable {
        let procedure: ObjectIdentifier
        let identity: Procedure.Identity
        let attached: TimeInterval
        var started: TimeInterval?
        var cancelled: TimeInterval?
        var children: [ProfileResult] = []
        /// Child profilers attached whose results have not arrived.
        var outstandingChildren = 0
    }

    enum State: Equatable {
        /// Not attached to a procedure yet.
        case unattached
        /// Attached; the procedure has not finished.
        case recording(Recording)
        /// The procedure finished; some children's results have not arrived.
        case awaitingChildren(Recording, finished: TimeInterval)
        /// The result was handed over; nothing more happens.
        case reported
    }

    enum AttachAction: Equatable {
        case none
        /// Already attached (to this or another procedure): the new attachment is not profiled.
        case rejectSecondAttachment
    }

    enum ChildAction: Equatable {
        case none
        /// Attach a child profiler to the operation being added; its result is awaited.
        case attachChildProfiler
    }

    enum ReportAction: Equatable {
        case none
        /// Hand this result to the reporters.
        case report(ProfileResult)
    }

    private(set) var state = State.unattached
    /// The profiler's creation time, absolute (seconds since the reference date).
    let created: TimeInterval

    init(created: TimeInterval) {
        self.created = created
    }

    mutating func attach(to procedure: ObjectIdentifier, identity: Procedure.Identity, at time: TimeInterval)
        -> AttachAction
    {
        switch state {
        case .unattached:
            state = .recording(Recording(procedure: procedure, identity: identity, attached: time))
            return .none
        case .recording, .awaitingChildren, .reported:
            return .rejectSecondAttachment
        }
    }

    mutating func willExecute(_ procedure: ObjectIdentifier, at time: TimeInterval) {
        switch state {
        case .recording(var recording):
            guard recording.procedure == procedure else { return }
            if recording.started == nil { recording.started = time }
            state = .recording(recording)
        case .unattached, .awaitingChildren, .reported:
            ignoreUnlessProfiled(procedure, event: "willExecute")
        }
    }

    mutating func didCancel(_ procedure: ObjectIdentifier, at time: TimeInterval) {
        switch state {
        case .recording(var recording):
            guard recording.procedure == procedure else { return }
            if recording.cancelled == nil { recording.cancelled = time }
            state = .recording(recording)
        case .unattached, .awaitingChildren, .reported:
            ignoreUnlessProfiled(procedure, event: "didCancel")
        }
    }

    mutating func willAddChild(_ procedure: ObjectIdentifier) -> ChildAction {
        switch state {
        case .recording(var recording):
            guard recording.procedure == procedure else { return .none }
            recording.outstandingChildren += 1
            state = .recording(recording)
            return .attachChildProfiler
        case .unattached, .awaitingChildren, .reported:
            ignoreUnlessProfiled(procedure, event: "willAdd")
            return .none
        }
    }

    mutating func didFinish(_ procedure: ObjectIdentifier, at time: TimeInterval) -> ReportAction {
        switch state {
        case .recording(let recording):
            guard recording.procedure == procedure else { return .none }
            if recording.outstandingChildren == 0 {
                state = .reported
                return .report(result(recording, finished: time))
            }
            state = .awaitingChildren(recording, finished: time)
            return .none
        case .awaitingChildren, .reported:
            // A repeated DidFinish (profiler attached twice) or another procedure's: the first one counts.
            return .none
        case .unattached:
            preconditionFailure("ProcedureProfiler: didFinish before didAttach (state \(state))")
        }
    }

    mutating func childDidReport(_ child: ProfileResult) -> ReportAction {
        switch state {
        case .recording(var recording):
            recording.children.append(child)
            recording.outstandingChildren -= 1
            state = .recording(recording)
            return .none
        case .awaitingChildren(var recording, let finished):
            recording.children.append(child)
            recording.outstandingChildren -= 1
            guard recording.outstandingChildren == 0 else {
                state = .awaitingChildren(recording, finished: finished)
                return .none
            }
            state = .reported
            return .report(result(recording, finished: finished))
        case .unattached, .reported:
            preconditionFailure("ProcedureProfiler: a child result arrived that was not awaited (state \(state))")
        }
    }

    /// Nests a result handed to the profiler as a reporter (not by one of its child profilers) among the children,
    /// without counting it as an awaited child; once the result has been reported, it is ignored.
    mutating func adopt(_ result: ProfileResult) {
        switch state {
        case .recording(var recording):
            recording.children.append(result)
            state = .recording(recording)
        case .awaitingChildren(var recording, let finished):
            recording.children.append(result)
            state = .awaitingChildren(recording, finished: finished)
        case .unattached, .reported:
            break
        }
    }

    /// Before attachment no event can arrive (PKCore sends `didAttach` first). After the procedure finished, the
    /// only events left are repeats of its DidFinish and events of another procedure the profiler was (wrongly)
    /// attached to as well, which may even live at the finished procedure's address: all are ignored.
    private func ignoreUnlessProfiled(_ procedure: ObjectIdentifier, event: String) {
        switch state {
        case .unattached:
            preconditionFailure("ProcedureProfiler: \(event) before didAttach (state \(state))")
        case .recording, .awaitingChildren, .reported:
            break
        }
    }

    private func result(_ recording: Recording, finished: TimeInterval) -> ProfileResult {
        ProfileResult(
            identity: recording.identity, created: created, attached: recording.attached, started: recording.started,
            cancelled: recording.cancelled, finished: finished,
            children: recording.children.sorted { $0.created < $1.created })
    }
}
