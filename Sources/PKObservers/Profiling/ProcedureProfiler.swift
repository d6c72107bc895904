import Foundation
import PKCore

/// An observer that times one procedure's lifecycle, and the procedures it adds, and hands the result to
/// reporters.
///
/// ```swift
/// let procedure = MyProcedure()
/// procedure.addObserver(ProcedureProfiler())          // logs a nested timeline when done
/// queue.add(procedure: procedure)
/// ```
///
/// Times are relative to the moment the profiler was created (see ``ProfileResult``): when it was attached, when
/// the procedure started executing, when it was cancelled and when it finished. For every procedure the profiled
/// one is about to add (an operation it produces, a group's children) a child profiler is attached, and its
/// result is nested in ``ProfileResult/children``. Once the procedure has finished and every child result has
/// arrived, the reporters get the result, exactly once.
///
/// Attach a profiler to one procedure, once: a second attachment is refused with a warning. The profiler reads
/// the process's monotonic clock unless it is given a ``/PKCore/ProcedureClock`` (tests pass PKTesting's
/// `ManualClock`). Callbacks run on the thread delivering the procedure's events; reporters are called outside
/// any lock. Cancellation is recorded, not acted on. Thread-safe.
///
/// As in ProcedureKit, a profiler is `Identifiable` and `Equatable` (by identity), and is itself a
/// ``ProcedureProfilerReporter``: a result handed to ``finishedProfiling(withResult:)`` is nested among its
/// children.
public final class ProcedureProfiler: ProcedureObserver, Identifiable, Equatable, ProcedureProfilerReporter {

    private let reporters: [any ProcedureProfilerReporter]
    private let clock: (any ProcedureClock)?
    private let time: ElapsedTime
    private let machine: PKMutex<ProfilerStateMachine>

    /// Creates a profiler that reports to `reporters`, reading `clock` (by default, `nil`: the process's
    /// monotonic clock).
    public init(reporters: [any ProcedureProfilerReporter], clock: (any ProcedureClock)? = nil) {
        self.reporters = reporters
        self.clock = clock
        time = ElapsedTime(clock: clock)
        machine = PKMutex(ProfilerStateMachine(created: time.originDate.timeIntervalSinceReferenceDate))
    }

    /// Creates a profiler that reports to `reporter`, by default a ``ProcedureProfileLogger``.
    public convenience init(
        _ reporter: any ProcedureProfilerReporter = ProcedureProfileLogger(), clock: (any ProcedureClock)? = nil
    ) {
        self.init(reporters: [reporter], clock: clock)
    }

    // MARK: - ProcedureObserver

    /// Records when the profiler was attached; a second attachment is refused with a warning.
    public func didAttach(to procedure: Procedure) {
        let now = time.seconds()
        let identity = procedure.identity
        let action = machine.withLock { $0.attach(to: ObjectIdentifier(procedure), identity: identity, at: now) }
        switch action {
        case .none:
            break
        case .rejectSecondAttachment:
            procedure.log.warning("a ProcedureProfiler profiles one procedure; this attachment is not profiled")
        }
    }

    /// Records when the procedure started executing.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        let now = time.seconds()
        machine.withLock { $0.willExecute(ObjectIdentifier(procedure), at: now) }
    }

    /// Records when the procedure was cancelled.
    public func did(cancel procedure: Procedure, withErrors errors: [any Error]) {
        let now = time.seconds()
        machine.withLock { $0.didCancel(ObjectIdentifier(procedure), at: now) }
    }

    /// Attaches a child profiler, reporting to this one, to a procedure about to be added.
    public func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        guard let child = newOperation as? Procedure else { return }
        let action = machine.withLock { $0.willAddChild(ObjectIdentifier(procedure)) }
        switch action {
        case .none:
            break
        case .attachChildProfiler:
            child.addObserver(ProcedureProfiler(reporters: [ChildResultCollector(parent: self)], clock: clock))
        }
    }

    /// Records when the procedure finished; reports now if no child result is outstanding.
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        let now = time.seconds()
        let action = machine.withLock { $0.didFinish(ObjectIdentifier(procedure), at: now) }
        perform(action)
    }

    // MARK: - Identity

    /// Two profilers are equal when they are the same profiler.
    public static func == (lhs: ProcedureProfiler, rhs: ProcedureProfiler) -> Bool {
        lhs === rhs
    }

    // MARK: - ProcedureProfilerReporter

    /// Nests `result` among the children of the result this profiler will report, from its attachment until it
    /// reports (before and after, `result` is ignored). Results of the child profilers it attaches itself arrive by
    /// another route.
    public func finishedProfiling(withResult result: ProfileResult) {
        machine.withLock { $0.adopt(result) }
    }

    // MARK: - Children

    fileprivate func childDidReport(_ result: ProfileResult) {
        let action = machine.withLock { $0.childDidReport(result) }
        perform(action)
    }

    private func perform(_ action: ProfilerStateMachine.ReportAction) {
        switch action {
        case .none:
            break
        case .report(let result):
            for reporter in reporters { reporter.finishedProfiling(withResult: result) }
        }
    }
}

/// A child profiler's reporter: hands the child's result to the parent profiler.
private struct ChildResultCollector: ProcedureProfilerReporter {
    let parent: ProcedureProfiler

    func finishedProfiling(withResult result: ProfileResult) {
        parent.childDidReport(result)
    }
}
