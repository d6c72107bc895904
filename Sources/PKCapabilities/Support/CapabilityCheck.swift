import Foundation

/// One check of a capability, shared by the procedures and ``AuthorizedFor``: reads availability, optionally
/// requests authorization, then reads the status, and reports the ``Outcome`` once.
///
/// A timeout (on a ``ProcedureClock``) and ``cancel()`` end the check even when the capability never calls back;
/// an answer that arrives afterwards is ignored. The capability and the clock hold the check weakly, so a
/// capability that keeps a completion handler forever keeps nothing alive.
///
/// The outcome is reported outside the lock, on the thread that delivered it: the capability's, the clock's, or
/// the cancelling one.
final class CapabilityCheck<Status: AuthorizationStatus>: Sendable {

    /// How a check ended.
    enum Outcome: Sendable {
        /// The capability is unavailable, so nothing was asked (only in ``CapabilityCheckMode/readIfAvailable``).
        case unavailable
        /// The capability answered.
        case completed(isAvailable: Bool, status: Status)
        /// The timeout passed first.
        case timedOut(Duration)
        /// ``CapabilityCheck/cancel()`` was called first.
        case cancelled
    }

    private typealias Machine = CapabilityCheckStateMachine<Status, any ScheduledAction>

    private let capability: AnyCapability<Status>
    private let mode: CapabilityCheckMode
    private let timeout: Duration?
    private let clock: any ProcedureClock
    private let machine = PKMutex(Machine())
    /// Called once with the outcome; released afterwards.
    private let report: PKMutex<(@Sendable (Outcome) -> Void)?>

    /// Prepares a check of `capability` that does what `mode` says, gives up after `timeout` on `clock` (never
    /// when `nil`), and reports to `report`.
    init(
        capability: AnyCapability<Status>, mode: CapabilityCheckMode,
        timeout: Duration?, clock: any ProcedureClock,
        report: @escaping @Sendable (Outcome) -> Void
    ) {
        self.capability = capability
        self.mode = mode
        self.timeout = timeout
        self.clock = clock
        self.report = PKMutex(report)
    }

    /// Starts the check: reads availability (synchronously, on the calling thread), arms the timeout, then
    /// requests or reads.
    func start() {
        let isAvailable = capability.isAvailable()
        let (action, waiting) = machine.withLock { ($0.start(mode, isAvailable: isAvailable), $0.isWaiting) }
        if let timeout, waiting {
            let timer = clock.schedule(after: timeout) { [weak self] in
                guard let self else { return }
                perform(machine.withLock { $0.timedOut() })
            }
            perform(machine.withLock { $0.armed(timer) })
        }
        perform(action)
    }

    /// Ends the check now, reporting ``Outcome/cancelled`` unless it already ended.
    func cancel() {
        perform(machine.withLock { $0.cancelled() })
    }

    private func perform(_ action: Machine.Action) {
        switch action {
        case .none:
            break
        case .request:
            capability.requestAuthorization { [weak self] in
                guard let self else { return }
                perform(machine.withLock { $0.requestCompleted() })
            }
        case .readStatus:
            capability.getAuthorizationStatus { [weak self] status in
                guard let self else { return }
                perform(machine.withLock { $0.statusRead(status) })
            }
        case .reportUnavailable:
            deliver(.unavailable)
        case .complete(let isAvailable, let status, let timer):
            timer?.cancel()
            deliver(.completed(isAvailable: isAvailable, status: status))
        case .timeOut(let timer):
            timer?.cancel()
            deliver(.timedOut(timeout ?? .zero))
        case .cancel(let timer):
            timer?.cancel()
            deliver(.cancelled)
        case .cancelTimer(let timer):
            timer.cancel()
        }
    }

    private func deliver(_ outcome: Outcome) {
        let report = report.withLock { report in
            defer { report = nil }
            return report
        }
        report?(outcome)
    }
}
