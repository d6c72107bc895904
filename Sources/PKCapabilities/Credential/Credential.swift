import Foundation

extension Capability {

    /// A web-service credential: a token from a ``CredentialStore`` (the environment, a file, or a keychain-like
    /// store of yours), and an authorize step of yours (a device-code flow, a token refresh) that gets a new one.
    ///
    /// ```swift
    /// let github = Capability.Credential(
    ///     name: "github", store: FileCredentialStore(path: tokenPath),
    ///     requirement: .init(scopes: ["repo"], validFor: .seconds(60))
    /// ) { current in
    ///     try await refresh(current)   // returns a new Capability.Credential.Token
    /// }
    /// sync.add(condition: AuthorizedFor(github))
    /// ```
    ///
    /// - Requirement: ``Requirement``, the scopes and the remaining validity needed.
    /// - Status: ``Status/missing``, ``Status/expired(at:)``, ``Status/valid(scopes:expiresIn:)`` or
    ///   ``Status/unreadable(_:)``, read from the store at each question; expiry is judged by ``clock``.
    /// - Always available.
    /// - Requesting authorization runs the authorize step with the current token (or `nil`) and saves the token
    ///   it returns in the store. Callers racing to authorize share one run of the step. A step that throws, or
    ///   does not answer within ``authorizeTimeout``, leaves the store as it was; the failure is kept in
    ///   ``lastAuthorizationError`` and reported by ``unauthorizedReason(for:)``. Without an authorize step,
    ///   requesting changes nothing.
    ///
    /// The token's value never appears in a status, an error, a description or a log line of the framework.
    ///
    /// Threads: the status is read synchronously on the calling thread. The authorize step runs in a new Task
    /// (the `async` form) or is called on the requesting thread (the completion-handler form); the requests'
    /// completions run on the thread that ends the step (the step's, or the clock's for a timeout).
    /// Cancellation: ``cancelAuthorization()`` abandons the step in flight (cancelling its Task); a procedure that
    /// stops waiting does not abandon it, since others may share it.
    public final class Credential: CapabilityProtocol, CustomStringConvertible {

        /// An authorize step: given the current token (possibly expired) or `nil`, returns a new token, or throws.
        /// It runs in a new Task; it is cancelled when it times out or is abandoned.
        public typealias AuthorizeStep = @Sendable (_ current: Token?) async throws -> Token

        /// An authorize step that calls back: given the current token or `nil`, it calls the completion once with
        /// a new token or an error, from any thread.
        public typealias AuthorizeStepWithCompletion =
            @Sendable (_ current: Token?, _ completion: @escaping @Sendable (Result<Token, any Error>) -> Void) -> Void

        private enum Step: Sendable {
            case async(AuthorizeStep)
            case completion(AuthorizeStepWithCompletion)
        }

        private enum Ending {
            case answered(Result<Token, any Error>)
            case timedOut(Duration)
            case abandoned
        }

        private typealias Machine = SharedRequestStateMachine<
            @Sendable () -> Void, any ScheduledAction, Task<Void, Never>
        >

        /// The credential's name, used in errors and descriptions (`"github"`).
        public let name: String
        /// Where the token is kept.
        public let store: any CredentialStore
        /// What the code using the credential needs.
        public let requirement: Requirement?
        /// How long the authorize step may take; `nil` for as long as it takes.
        public let authorizeTimeout: Duration?
        /// The clock for expiry and for the authorize timeout.
        public let clock: any ProcedureClock

        private let step: Step?
        private let machine = PKMutex(Machine())
        private let lastError = PKMutex<CredentialError?>(nil)
        /// The last token value read from or saved to the store, to redact from reasons when the store cannot be
        /// read (a store's own error may quote it).
        private let lastSeenSecret = PKMutex<String?>(nil)

        private init(
            name: String, store: any CredentialStore, requirement: Requirement?, authorizeTimeout: Duration?,
            clock: any ProcedureClock, step: Step?
        ) {
            self.name = name
            self.store = store
            self.requirement = requirement
            self.authorizeTimeout = authorizeTimeout
            self.clock = clock
            self.step = step
        }

        /// Creates a credential with an `async` authorize step, or none.
        ///
        /// - Parameters:
        ///   - name: A name for errors and descriptions.
        ///   - store: Where the token is kept.
        ///   - requirement: What the code using it needs; `nil` for any valid token.
        ///   - authorizeTimeout: How long the authorize step may take; two minutes by default, `nil` for no limit.
        ///   - clock: The clock for expiry and the timeout.
        ///   - authorize: The authorize step; `nil` when a token can only be provided from outside.
        public convenience init(
            name: String, store: any CredentialStore, requirement: Requirement? = nil,
            authorizeTimeout: Duration? = .seconds(120), clock: any ProcedureClock = SystemClock(),
            authorize: AuthorizeStep? = nil
        ) {
            self.init(
                name: name, store: store, requirement: requirement, authorizeTimeout: authorizeTimeout, clock: clock,
                step: authorize.map(Step.async))
        }

        /// Creates a credential whose authorize step calls back.
        ///
        /// - Parameters:
        ///   - name: A name for errors and descriptions.
        ///   - store: Where the token is kept.
        ///   - requirement: What the code using it needs; `nil` for any valid token.
        ///   - authorizeTimeout: How long the authorize step may take; two minutes by default, `nil` for no limit.
        ///   - clock: The clock for expiry and the timeout.
        ///   - authorize: The authorize step.
        public convenience init(
            name: String, store: any CredentialStore, requirement: Requirement? = nil,
            authorizeTimeout: Duration? = .seconds(120), clock: any ProcedureClock = SystemClock(),
            authorizeWithCompletion authorize: @escaping AuthorizeStepWithCompletion
        ) {
            self.init(
                name: name, store: store, requirement: requirement, authorizeTimeout: authorizeTimeout, clock: clock,
                step: .completion(authorize))
        }

        // MARK: - CapabilityProtocol

        /// Always `true`.
        public func isAvailable() -> Bool { true }

        /// Reads the store and calls `completion` with the status at once, on the calling thread.
        public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
            completion(currentStatus().status)
        }

        /// Runs the authorize step (or joins the run in flight) and calls `completion` when it ends.
        public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
            perform(machine.withLock { $0.request(completion) })
        }

        /// Why the status is not enough: the last authorization failure if there was one, else what is wrong with
        /// the token. Never contains the token.
        public func unauthorizedReason(for status: Status) -> (any Error)? {
            if status.meets(requirement: requirement) { return nil }
            if case .unreadable(let error) = status { return error }
            if let error = lastAuthorizationError { return error }
            let requirement = requirement ?? Requirement()
            switch status {
            case .missing:
                return step == nil
                    ? CredentialError.noAuthorizeStep(credential: name, source: store.description)
                    : CredentialError.missing(credential: name, source: store.description)
            case .expired(let date):
                return CredentialError.expired(credential: name, at: date)
            case .valid(let scopes, let expiresIn):
                let missing = requirement.scopes.subtracting(scopes)
                if !missing.isEmpty { return CredentialError.insufficientScopes(credential: name, missing: missing) }
                return CredentialError.expiresTooSoon(
                    credential: name, expiresIn: expiresIn ?? .zero, needed: requirement.minimumValidity)
            case .unreadable(let error):
                return error
            }
        }

        // MARK: - Using the token

        /// The stored token when it meets the requirement; otherwise throws why not.
        public func validToken() throws(CredentialError) -> Token {
            let (status, token) = currentStatus()
            if let token, status.meets(requirement: requirement) { return token }
            throw (unauthorizedReason(for: status) as? CredentialError)
                ?? .missing(credential: name, source: store.description)
        }

        /// Why the last authorize step failed; `nil` when it succeeded or none ran yet.
        public var lastAuthorizationError: CredentialError? { lastError.withLock { $0 } }

        /// Abandons the authorize step in flight, if any: its Task is cancelled, its late answer ignored, and every
        /// request waiting for it completes now with ``CredentialError/authorizeCancelled(credential:)`` recorded.
        public func cancelAuthorization() {
            guard let generation = machine.withLock({ $0.inFlightGeneration }) else { return }
            end(generation, .abandoned)
        }

        /// `Credential(<name> from <store>)`.
        public var description: String { "Credential(\(name) from \(store))" }

        // MARK: - Internals

        /// The longest validity a status reports, in seconds (about a thousand years).
        static let longestValidity: Double = 1_000 * 365.25 * 86_400

        /// The status, and the token it describes.
        private func currentStatus() -> (status: Status, token: Token?) {
            let token: Token?
            do {
                token = try store.loadToken()
            } catch {
                let reason = redacted(String(describing: error), nil, storeReadable: false)
                return (.unreadable(.unreadable(credential: name, reason: reason)), nil)
            }
            guard let token else { return (.missing, nil) }
            lastSeenSecret.withLock { $0 = token.revealedValue }
            guard let expiresAt = token.expiresAt else { return (.valid(scopes: token.scopes, expiresIn: nil), token) }
            let remaining = expiresAt.timeIntervalSince(clock.now)
            guard remaining > 0 else { return (.expired(at: expiresAt), token) }
            // Whole seconds, rounded down: enough to judge a minimum validity, and a stable description. An expiry
            // further away than `longestValidity` (a token file saying `"expires_at": 1e19`, say) counts as that:
            // the conversion to Int64 would trap.
            let seconds = min(remaining.rounded(.down), Self.longestValidity)
            return (.valid(scopes: token.scopes, expiresIn: .seconds(Int64(seconds))), token)
        }

        private func perform(_ action: Machine.Action) {
            switch action {
            case .none:
                break
            case .start(let generation):
                start(generation)
            case .cancelTimer(let timer):
                timer.cancel()
            case .cancelWork(let task):
                task.cancel()
            case .settle:
                preconditionFailure("settle is performed by end(_:_:)")
            case .complete(let waiters):
                for waiter in waiters { waiter() }
            }
        }

        private func start(_ generation: UInt64) {
            guard let step else {
                end(
                    generation,
                    .answered(.failure(CredentialError.noAuthorizeStep(credential: name, source: store.description))))
                return
            }
            let current = try? store.loadToken()
            if let authorizeTimeout {
                let timer = clock.schedule(after: authorizeTimeout) { [weak self] in
                    self?.end(generation, .timedOut(authorizeTimeout))
                }
                perform(machine.withLock { $0.armed(timer, generation: generation) })
            }
            switch step {
            case .async(let authorize):
                let task = Task { [weak self] in
                    let result: Result<Token, any Error>
                    do {
                        result = .success(try await authorize(current))
                    } catch {
                        result = .failure(error)
                    }
                    self?.end(generation, .answered(result))
                }
                perform(machine.withLock { $0.working(task, generation: generation) })
            case .completion(let authorize):
                authorize(current) { [weak self] result in
                    self?.end(generation, .answered(result))
                }
            }
        }

        /// The step of `generation` ended: if it is still the one in flight, applies the outcome and completes
        /// every waiter; otherwise (late) ignores it.
        private func end(_ generation: UInt64, _ ending: Ending) {
            guard case .settle(let timer, let task) = machine.withLock({ $0.ended(generation: generation) }) else {
                return
            }
            timer?.cancel()
            switch ending {
            case .answered(.success(let token)):
                do {
                    try store.saveToken(token)
                    lastSeenSecret.withLock { $0 = token.revealedValue }
                    lastError.withLock { $0 = nil }
                } catch {
                    record(.saveFailed(credential: name, reason: redacted(String(describing: error), token)))
                }
            case .answered(.failure(let error as CredentialError)):
                // The step's own CredentialError may quote the token in its reason too.
                record(error.mappingReason { redacted($0, nil) })
            case .answered(.failure(let error)):
                record(.authorizeFailed(credential: name, reason: redacted(String(describing: error), nil)))
            case .timedOut(let after):
                task?.cancel()
                record(.authorizeTimedOut(credential: name, after: after))
            case .abandoned:
                task?.cancel()
                record(.authorizeCancelled(credential: name))
            }
            perform(machine.withLock { $0.settled() })
        }

        private func record(_ error: CredentialError) {
            lastError.withLock { $0 = error }
        }

        /// `text` with the stored token's value (unless the store is known to be unreadable), the last one seen, and
        /// `extra`'s, replaced by `<redacted>`.
        private func redacted(_ text: String, _ extra: Token?, storeReadable: Bool = true) -> String {
            let stored = storeReadable ? (try? store.loadToken())?.revealedValue : nil
            let secrets = [stored, lastSeenSecret.withLock { $0 }, extra?.revealedValue].compactMap { $0 }
            return secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "<redacted>") }
        }
    }
}
