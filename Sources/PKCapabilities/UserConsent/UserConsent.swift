extension Capability {

    /// A person's consent, asked through a `ConfirmationProvider` (the terminal by default), and remembered for
    /// the life of this object.
    ///
    /// ```swift
    /// let consent = Capability.UserConsent(title: "Rotate keys", message: "Revoke every API key now?")
    /// rotate.add(condition: AuthorizedFor(consent))
    /// ```
    ///
    /// - Requirement: none (`Void`).
    /// - Status: ``Status/notAsked`` until someone requests authorization, then the answer: ``Status/granted``,
    ///   ``Status/declined``, or ``Status/unavailable(reason:)`` when nobody could be asked (no terminal: a
    ///   service, a CI job, a pipe). Only ``Status/granted`` meets the requirement.
    /// - Always available.
    /// - Requesting authorization asks the provider, unless consent was already granted. Callers racing to
    ///   authorize share one question, and ``AuthorizeCapabilityProcedure`` never asks two questions of this type
    ///   at once. A declined or unavailable answer is asked again at the next request.
    ///
    /// Reading the status never asks: `SilentCondition(AuthorizedFor(consent))` only checks a consent given
    /// earlier. Threads: the status is read on the calling thread; the requests' completions run on the thread
    /// the provider answers on. A question cannot be withdrawn.
    public final class UserConsent: CapabilityProtocol, CustomStringConvertible {

        private typealias Machine = SharedRequestStateMachine<@Sendable () -> Void, Never, Never>

        /// The question's title.
        public let title: String
        /// What will happen if the person agrees.
        public let message: String
        /// Who is asked.
        public let provider: any ConfirmationProvider

        private let machine = PKMutex(Machine())
        private let answer = PKMutex(Status.notAsked)

        /// Creates the capability.
        ///
        /// - Parameters:
        ///   - title: A short title for the question.
        ///   - message: What will happen if the person agrees.
        ///   - provider: Who to ask; the terminal by default, which answers `unavailable` at once without one.
        public init(title: String, message: String, provider: any ConfirmationProvider = TerminalConfirmationProvider())
        {
            self.title = title
            self.message = message
            self.provider = provider
        }

        /// There is no requirement beyond consent.
        public var requirement: Void? { () }

        /// Always `true`: whether someone can answer is only known by asking.
        public func isAvailable() -> Bool { true }

        /// Calls `completion` with the remembered answer at once, on the calling thread; never asks.
        public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
            completion(status)
        }

        /// Asks the provider (or joins the question in flight), unless consent was granted already; `completion`
        /// runs when the answer is in.
        public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
            if status == .granted {
                completion()
                return
            }
            perform(machine.withLock { $0.request(completion) })
        }

        /// `UserConfirmationError.declined`, `.unavailable(reason)`, or `.unavailable` saying nobody was asked.
        public func unauthorizedReason(for status: Status) -> (any Error)? {
            switch status {
            case .granted: nil
            case .declined: UserConfirmationError.declined
            case .unavailable(let reason): UserConfirmationError.unavailable(reason)
            case .notAsked: UserConfirmationError.unavailable("nobody was asked yet: request authorization first")
            }
        }

        /// The remembered answer.
        public var status: Status { answer.withLock { $0 } }

        /// `UserConsent(<title>)`.
        public var description: String { "UserConsent(\(title))" }

        private func perform(_ action: Machine.Action) {
            switch action {
            case .none:
                break
            case .start(let generation):
                provider.confirm(title: title, message: message) { [weak self] answer in
                    self?.answered(answer, generation: generation)
                }
            case .complete(let waiters):
                for waiter in waiters { waiter() }
            case .settle, .cancelTimer, .cancelWork:
                preconditionFailure("UserConsent has no timer or work, and settles in answered(_:generation:)")
            }
        }

        private func answered(_ confirmation: ConfirmationAnswer, generation: UInt64) {
            guard case .settle = machine.withLock({ $0.ended(generation: generation) }) else { return }
            let status: Status =
                switch confirmation {
                case .confirmed: .granted
                case .declined: .declined
                case .unavailable(let reason): .unavailable(reason: reason)
                }
            answer.withLock { $0 = status }
            perform(machine.withLock { $0.settled() })
        }
    }
}
