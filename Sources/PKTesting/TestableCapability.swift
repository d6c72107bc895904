import Dispatch
import PKCapabilities

/// A capability for tests, with knobs for every answer and recorders for every question: ProcedureKit's
/// `TestableCapability`.
///
/// ```swift
/// let capability = TestableCapability(serviceAuthorizationStatus: .denied)
/// let check = GetAuthorizationStatusProcedure(capability)
/// // … run it …
/// PKExpectGetAuthorizationStatus(check.output.success, expected: (true, .denied))
/// PKExpectTestCapabilityStatusChecked(capability)   // checked, never requested
/// ```
///
/// Answers are synchronous, on the asking thread, unless ``isAsynchronous`` is set (then they come from a global
/// dispatch queue). ``statusResponse`` and ``requestResponse`` make it hold its answers until
/// ``releaseHeldResponses()``, or never answer, to test timeouts, cancellation and mutual exclusion. A request
/// changes the status to ``responseAuthorizationStatus`` when it is answered. Every member is thread-safe.
public final class TestableCapability: CapabilityProtocol {

    /// ProcedureKit's test status: two levels of authorization, and three ways of having none.
    public enum Status: AuthorizationStatus, Hashable, CaseIterable, Sendable {
        /// What the test capability needs.
        public enum Requirement: Hashable, Sendable {
            /// Some authorization.
            case minimum
            /// Full authorization.
            case maximum
        }

        /// Never asked.
        case unknown
        /// Not allowed to be asked.
        case restricted
        /// Refused.
        case denied
        /// Authorized for ``Requirement/minimum`` (and for no requirement).
        case minimumAuthorized
        /// Authorized for anything.
        case maximumAuthorized

        /// ``maximumAuthorized`` meets every requirement; ``minimumAuthorized`` meets ``Requirement/minimum`` and
        /// `nil`; the others meet nothing.
        public func meets(requirement: Requirement?) -> Bool {
            switch (self, requirement) {
            case (.maximumAuthorized, _), (.minimumAuthorized, .minimum), (.minimumAuthorized, nil): true
            case (.minimumAuthorized, .maximum), (.unknown, _), (.restricted, _), (.denied, _): false
            }
        }
    }

    /// How the capability answers a question.
    public enum Response: Hashable, Sendable {
        /// At once (or from a global queue when ``TestableCapability/isAsynchronous``).
        case answer
        /// Only when ``TestableCapability/releaseHeldResponses()`` is called.
        case hold
        /// Never: the completion handler is dropped without being called.
        case never
    }

    private struct Knobs {
        var requirement: Status.Requirement?
        var isAsynchronous: Bool
        var serviceIsAvailable: Bool
        var serviceAuthorizationStatus: Status
        var responseAuthorizationStatus: Status
        var statusResponse = Response.answer
        var requestResponse = Response.answer
    }

    private struct Records {
        var availabilityChecks = 0
        var statusChecks = 0
        var requests = 0
        var requestsInProgress = 0
        var maxConcurrentRequests = 0
        var heldStatuses: [@Sendable (Status) -> Void] = []
        var heldRequests: [@Sendable () -> Void] = []
    }

    private let knobs: PKMutex<Knobs>
    private let records = PKMutex(Records())

    /// Creates the capability.
    ///
    /// - Parameters:
    ///   - requirement: What it needs; `.minimum` by default.
    ///   - isAsynchronous: Whether answers come from a global dispatch queue.
    ///   - serviceIsAvailable: What ``isAvailable()`` answers.
    ///   - serviceAuthorizationStatus: The status before any request; `.unknown` by default.
    ///   - responseAuthorizationStatus: The status after a request; `.maximumAuthorized` by default.
    public init(
        requirement: Status.Requirement? = .minimum, isAsynchronous: Bool = false, serviceIsAvailable: Bool = true,
        serviceAuthorizationStatus: Status = .unknown, responseAuthorizationStatus: Status = .maximumAuthorized
    ) {
        knobs = PKMutex(
            Knobs(
                requirement: requirement, isAsynchronous: isAsynchronous, serviceIsAvailable: serviceIsAvailable,
                serviceAuthorizationStatus: serviceAuthorizationStatus,
                responseAuthorizationStatus: responseAuthorizationStatus))
    }

    // MARK: - Knobs

    /// What the capability needs.
    public var requirement: Status.Requirement? {
        get { knobs.withLock { $0.requirement } }
        set { knobs.withLock { $0.requirement = newValue } }
    }

    /// Whether answers come from a global dispatch queue instead of the asking thread.
    public var isAsynchronous: Bool {
        get { knobs.withLock { $0.isAsynchronous } }
        set { knobs.withLock { $0.isAsynchronous = newValue } }
    }

    /// What ``isAvailable()`` answers.
    public var serviceIsAvailable: Bool {
        get { knobs.withLock { $0.serviceIsAvailable } }
        set { knobs.withLock { $0.serviceIsAvailable = newValue } }
    }

    /// The status reported now.
    public var serviceAuthorizationStatus: Status {
        get { knobs.withLock { $0.serviceAuthorizationStatus } }
        set { knobs.withLock { $0.serviceAuthorizationStatus = newValue } }
    }

    /// The status a request leaves behind when it is answered.
    public var responseAuthorizationStatus: Status {
        get { knobs.withLock { $0.responseAuthorizationStatus } }
        set { knobs.withLock { $0.responseAuthorizationStatus = newValue } }
    }

    /// How status reads are answered.
    public var statusResponse: Response {
        get { knobs.withLock { $0.statusResponse } }
        set { knobs.withLock { $0.statusResponse = newValue } }
    }

    /// How requests are answered.
    public var requestResponse: Response {
        get { knobs.withLock { $0.requestResponse } }
        set { knobs.withLock { $0.requestResponse = newValue } }
    }

    // MARK: - Recorders

    /// `true` once ``isAvailable()`` was called.
    public var didCheckIsAvailable: Bool { records.withLock { $0.availabilityChecks > 0 } }
    /// `true` once ``getAuthorizationStatus(_:)`` was called.
    public var didCheckAuthorizationStatus: Bool { records.withLock { $0.statusChecks > 0 } }
    /// `true` once ``requestAuthorization(withCompletion:)`` was called.
    public var didRequestAuthorization: Bool { records.withLock { $0.requests > 0 } }
    /// How many times ``getAuthorizationStatus(_:)`` was called.
    public var statusCheckCount: Int { records.withLock { $0.statusChecks } }
    /// How many times ``requestAuthorization(withCompletion:)`` was called.
    public var requestCount: Int { records.withLock { $0.requests } }
    /// Requests called and not yet answered.
    public var requestsInProgress: Int { records.withLock { $0.requestsInProgress } }
    /// The most requests ever in progress at once.
    public var maxConcurrentRequests: Int { records.withLock { $0.maxConcurrentRequests } }
    /// Answers held back (``Response/hold``) and not yet released.
    public var heldResponseCount: Int { records.withLock { $0.heldStatuses.count + $0.heldRequests.count } }

    /// Delivers every held answer, on the calling thread: status reads get the status current now.
    public func releaseHeldResponses() {
        let (statuses, requests) = records.withLock { records in
            defer {
                records.heldStatuses.removeAll()
                records.heldRequests.removeAll()
            }
            return (records.heldStatuses, records.heldRequests)
        }
        for request in requests { request() }
        let status = serviceAuthorizationStatus
        for completion in statuses { completion(status) }
    }

    // MARK: - CapabilityProtocol

    /// Records the call and returns ``serviceIsAvailable``.
    public func isAvailable() -> Bool {
        records.withLock { $0.availabilityChecks += 1 }
        return serviceIsAvailable
    }

    /// Records the call and answers ``serviceAuthorizationStatus`` as ``statusResponse`` says.
    public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
        records.withLock { $0.statusChecks += 1 }
        let (response, asynchronous) = knobs.withLock { ($0.statusResponse, $0.isAsynchronous) }
        switch response {
        case .never:
            return
        case .hold:
            records.withLock { $0.heldStatuses.append(completion) }
        case .answer:
            deliver(asynchronous) { [self] in completion(serviceAuthorizationStatus) }
        }
    }

    /// Records the call; when answered (as ``requestResponse`` says), the status becomes
    /// ``responseAuthorizationStatus`` and `completion` is called.
    public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
        records.withLock { records in
            records.requests += 1
            records.requestsInProgress += 1
            records.maxConcurrentRequests = max(records.maxConcurrentRequests, records.requestsInProgress)
        }
        let answer: @Sendable () -> Void = { [self] in
            knobs.withLock { $0.serviceAuthorizationStatus = $0.responseAuthorizationStatus }
            records.withLock { $0.requestsInProgress -= 1 }
            completion()
        }
        let (response, asynchronous) = knobs.withLock { ($0.requestResponse, $0.isAsynchronous) }
        switch response {
        case .never:
            return
        case .hold:
            records.withLock { $0.heldRequests.append(answer) }
        case .answer:
            deliver(asynchronous, answer)
        }
    }

    private func deliver(_ asynchronous: Bool, _ body: @escaping @Sendable () -> Void) {
        if asynchronous {
            DispatchQueue.global().async(execute: body)
        } else {
            body()
        }
    }
}
