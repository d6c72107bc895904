import Foundation

/// A procedure that reads a capability's availability and authorization status, and never requests
/// authorization.
///
/// ```swift
/// let check = GetAuthorizationStatusProcedure(Capability.FileAccess(.write, at: "/var/lib/app"))
/// let (isAvailable, status) = try await queue.run(check)
/// ```
///
/// Its ``output`` is `(isAvailable, status)`. It succeeds whatever the answer, unavailable and unauthorized
/// included: deciding what the answer means is the caller's job (or ``AuthorizedFor``'s). It calls
/// `isAvailable()` and then `getAuthorizationStatus(_:)` on the capability, sets the output, calls the
/// completion (on the thread the capability answered on) and finishes.
///
/// Bad capabilities: with a `timeout`, a capability that has not answered when it passes on `clock` makes the
/// procedure finish with `ProcedureKitError.timedOut(with:)` (its output then holds that failure); an answer
/// arriving later, or a second one, is ignored.
///
/// Cancellation: cancelled while waiting for the capability, it finishes at once, cancelled, with its output still
/// pending; the late answer is ignored.
public class GetAuthorizationStatusProcedure<Status: AuthorizationStatus>: Procedure, OutputProcedure,
    @unchecked Sendable
{
    // @unchecked Sendable: `outputStorage` and `check` are guarded by their PKMutexes; `capability`, `timeout`,
    // `clock` and `completion` are immutable and Sendable; the superclass guards its own state.

    /// The capability's availability and status.
    public typealias StatusResponse = (isAvailable: Bool, status: Status)

    /// A closure given the response, before the procedure finishes.
    public typealias Completion = @Sendable (StatusResponse) -> Void

    /// The capability, type-erased.
    public let capability: AnyCapability<Status>

    /// How long to wait for the capability before finishing with a timeout error; `nil` waits as long as it takes.
    public let timeout: Duration?

    /// The clock the timeout is measured on.
    public let clock: any ProcedureClock

    private let completion: Completion?
    private let outputStorage = PKMutex<Pending<ProcedureResult<StatusResponse>>>(.pending)
    private let check = PKMutex<CapabilityCheck<Status>?>(nil)

    /// Whether ``execute()`` requests authorization before reading the status.
    var requestsAuthorization: Bool { false }

    /// Creates a procedure reading `capability`'s status.
    ///
    /// - Parameters:
    ///   - capability: The capability to read.
    ///   - timeout: How long to wait for the capability; `nil` (the default) waits as long as it takes.
    ///   - clock: The clock the timeout is measured on.
    ///   - completion: Called with the response before the procedure finishes, on the thread the capability
    ///     answered on. Not called after a timeout or a cancellation.
    public init<Base: CapabilityProtocol>(
        _ capability: Base, timeout: Duration? = nil, clock: any ProcedureClock = SystemClock(),
        completion: Completion? = nil
    ) where Base.Status == Status {
        self.capability = AnyCapability(capability)
        self.timeout = timeout
        self.clock = clock
        self.completion = completion
        super.init()
        name = "\(Self.displayName)(\(self.capability.baseTypeName))"
    }

    class var displayName: String { "GetAuthorizationStatus" }

    /// `(isAvailable, status)`; pending until the capability answered.
    public var output: Pending<ProcedureResult<StatusResponse>> {
        get { outputStorage.withLock { $0 } }
        set { outputStorage.withLock { $0 = newValue } }
    }

    /// Checks the capability (requesting authorization first in ``AuthorizeCapabilityProcedure``) and finishes
    /// when it answers.
    public override func execute() {
        let check = CapabilityCheck(
            capability: capability, mode: requestsAuthorization ? .requestThenRead : .read, timeout: timeout,
            clock: clock
        ) { [weak self] outcome in
            self?.checkEnded(outcome)
        }
        self.check.withLock { $0 = check }
        check.start()
    }

    private func checkEnded(_ outcome: CapabilityCheck<Status>.Outcome) {
        check.withLock { $0 = nil }
        switch outcome {
        case .completed(let isAvailable, let status):
            let response = (isAvailable: isAvailable, status: status)
            logResponse(response)
            outputStorage.withLock { $0 = .ready(.success(response)) }
            completion?(response)
            finish()
        case .unavailable:
            preconditionFailure("a procedure's check reads the status whether or not the capability is available")
        case .timedOut(let timeout):
            let error = ProcedureKitError.timedOut(with: .by(timeout.inSeconds))
            log.warning("\(capability.baseTypeName) did not answer within \(timeout.readable)")
            finish(withResult: .failure(error))
        case .cancelled:
            finish()
        }
    }

    /// Logs the answer (see ``responseLogMessages(_:)``).
    private func logResponse(_ response: StatusResponse) {
        for (severity, message) in responseLogMessages(response) {
            switch severity {
            case .info: log.info(message)
            default: log.verbose(message)
            }
        }
    }

    /// What the procedure logs about an answer: the status at `verbose` always; at `info`, when a request did not
    /// end with a status that meets the requirement, why not in the capability's words.
    func responseLogMessages(_ response: StatusResponse) -> [(LogSeverity, String)] {
        let type = capability.baseTypeName
        var messages = [(LogSeverity.verbose, "\(type): available \(response.isAvailable), status \(response.status)")]
        guard requestsAuthorization else { return messages }
        if !response.isAvailable {
            let reason = capability.unavailableReason().map { ": \($0)" } ?? ""
            messages.append((.info, "\(type) is unavailable, so authorization was not requested\(reason)"))
        } else if !response.status.meets(requirement: capability.requirement) {
            let reason = capability.unauthorizedReason(for: response.status).map { ": \($0)" } ?? ""
            messages.append(
                (.info, "\(type) was asked for authorization, and its status \(response.status) is not enough\(reason)")
            )
        }
        return messages
    }

    /// Ends the wait for the capability, so that the procedure finishes at once.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        check.withLock { $0 }?.cancel()
    }
}
