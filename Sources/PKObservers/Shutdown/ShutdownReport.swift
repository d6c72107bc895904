#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What happened during a shutdown: why it began, what finished in the grace period, what was still running
/// when the grace period ended, and how each participant's stop went.
///
/// ``ShutdownCoordinator/shutdownGracefully(timeout:)`` and the other waits return it once the coordinator has
/// stopped waiting. Its ``description`` is a few readable lines, fit for a program's last output.
public struct ShutdownReport: Sendable, Hashable, CustomStringConvertible {

    /// What started the shutdown.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The program asked for it (``ShutdownCoordinator/requestShutdown()`` or
        /// ``ShutdownCoordinator/shutdownGracefully(timeout:)``).
        case requested
        /// The process received this signal, which it had opted in to handle with
        /// ``ShutdownCoordinator/handleSignals(_:)-89clc``.
        case signal(Int32)
        /// A part of the program failed and had opted in to shutting the rest down: a procedure watched by a
        /// ``BackgroundObserver`` created with `requestsShutdownOnFailure: true`, or a participant that called
        /// ``ShutdownParticipant/requestShutdown(dueTo:)``.
        case failure(Failure)

        /// `"requested"`, the signal's name such as `"SIGTERM"`, or `"<name> failed: <error>"`.
        public var description: String {
            switch self {
            case .requested: "requested"
            case .signal(let number): Self.name(ofSignal: number)
            case .failure(let failure): failure.description
            }
        }

        private static func name(ofSignal number: Int32) -> String {
            switch number {
            case SIGTERM: "SIGTERM"
            case SIGINT: "SIGINT"
            case SIGHUP: "SIGHUP"
            case SIGQUIT: "SIGQUIT"
            case SIGUSR1: "SIGUSR1"
            case SIGUSR2: "SIGUSR2"
            default: "signal \(number)"
            }
        }
    }

    /// A procedure that was still running when the grace period ended (or that was attached after it ended).
    public struct Straggler: Sendable, Hashable, CustomStringConvertible {
        /// The procedure's name (`procedureName`).
        public let name: String
        /// The behaviour its ``BackgroundObserver`` asked for.
        public let behavior: BackgroundObserver.CancellationBehavior
        /// `true` when it finished during the cancellation period; `false` when it was still running when the
        /// coordinator stopped waiting (it was then cancelled, if it had not been already, as a last notice).
        public let finished: Bool

        /// Creates a straggler record.
        public init(name: String, behavior: BackgroundObserver.CancellationBehavior, finished: Bool) {
            self.name = name
            self.behavior = behavior
            self.finished = finished
        }

        /// `"<name> (<behaviour>): finished after the grace period"` or `"…: still running"`.
        public var description: String {
            "\(name) (\(behavior)): " + (finished ? "finished after the grace period" : "still running")
        }
    }

    /// A part of the program that failed, and its error: a procedure or participant whose failure requested
    /// shutdown, or a participant whose stop threw.
    ///
    /// Two failures are equal when they name the same part and their errors print the same
    /// (`String(reflecting:)`): errors are not `Equatable` in general.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The procedure's name (`procedureName`) or the participant's ``ShutdownParticipant/name``.
        public let name: String
        /// What it failed with.
        public let error: any Error

        /// Creates a failure record.
        public init(name: String, error: any Error) {
            self.name = name
            self.error = error
        }

        /// `"<name> failed: <error>"`.
        public var description: String { "\(name) failed: \(error)" }

        /// Whether both name the same part and their errors print the same.
        public static func == (lhs: Failure, rhs: Failure) -> Bool {
            lhs.name == rhs.name && String(reflecting: lhs.error) == String(reflecting: rhs.error)
        }

        /// Hashes the name and the error's printed form, which is what `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(String(reflecting: error))
        }
    }

    /// How one participant's stop went (see ``ShutdownCoordinator/addParticipant(named:stopOrder:stop:)``).
    public struct ParticipantStop: Sendable, Hashable, CustomStringConvertible {

        /// Where the stop ended up when the coordinator stopped waiting.
        public enum Outcome: Sendable, Hashable, CustomStringConvertible {
            /// It returned during the grace period.
            case stopped
            /// It returned during the cancellation period, after it had been cancelled.
            case stoppedAfterGracePeriod
            /// It threw, during either period.
            case failed(Failure)
            /// It had not returned when the coordinator stopped waiting (it had been cancelled).
            case stillStopping

            /// `"stopped"`, `"stopped after the grace period"`, `"failed (<error>)"` or `"still stopping"`.
            public var description: String {
                switch self {
                case .stopped: "stopped"
                case .stoppedAfterGracePeriod: "stopped after the grace period"
                case .failed(let failure): "failed (\(failure.error))"
                case .stillStopping: "still stopping"
                }
            }
        }

        /// The participant's name.
        public let name: String
        /// How its stop went.
        public let outcome: Outcome

        /// Creates a record of one participant's stop.
        public init(name: String, outcome: Outcome) {
            self.name = name
            self.outcome = outcome
        }

        /// `"<name>: <outcome>"`.
        public var description: String { "\(name): \(outcome)" }
    }

    /// What started the shutdown.
    public let reason: Reason
    /// How many handled signals arrived, the one that started the shutdown included.
    public let signalsReceived: Int
    /// The procedures that finished during the grace period, in the order they finished.
    public let finishedDuringGracePeriod: [String]
    /// The procedures still running when the grace period ended, in the order they were attached; empty when
    /// everything finished in time.
    public let stragglers: [Straggler]
    /// Every participant whose stop began, in the order the stops began: the stop order, except that once the
    /// grace period has expired the remaining stops begin together.
    public let participants: [ParticipantStop]

    /// Creates a report.
    public init(
        reason: Reason, signalsReceived: Int = 0, finishedDuringGracePeriod: [String] = [],
        stragglers: [Straggler] = [], participants: [ParticipantStop] = []
    ) {
        self.reason = reason
        self.signalsReceived = signalsReceived
        self.finishedDuringGracePeriod = finishedDuringGracePeriod
        self.stragglers = stragglers
        self.participants = participants
    }

    /// The names of the procedures still running, then of the participants still stopping, when the coordinator
    /// stopped waiting.
    public var stillRunning: [String] {
        stragglers.filter { !$0.finished }.map(\.name)
            + participants.filter { $0.outcome == .stillStopping }.map(\.name)
    }

    /// `true` when nothing was still running (no procedure, no participant's stop) when the coordinator stopped
    /// waiting. A failure does not make a report incomplete: see ``failures``.
    public var isComplete: Bool { stillRunning.isEmpty }

    /// Every failure the report holds: the one that requested shutdown, if it was one, then each participant's
    /// stop that threw, in the order the stops began.
    public var failures: [Failure] {
        var failures: [Failure] = []
        if case .failure(let failure) = reason { failures.append(failure) }
        for stop in participants {
            if case .failed(let failure) = stop.outcome { failures.append(failure) }
        }
        return failures
    }

    /// A few lines: the reason, what finished in the grace period, each straggler, and each participant's stop
    /// when there were participants.
    public var description: String {
        var lines = ["shutdown (\(reason), signals received: \(signalsReceived))"]
        let finished = finishedDuringGracePeriod.isEmpty ? "none" : finishedDuringGracePeriod.joined(separator: ", ")
        lines.append("finished during the grace period: \(finished)")
        if stragglers.isEmpty {
            lines.append("stragglers: none")
        } else {
            lines.append("stragglers:")
            lines += stragglers.map { "  \($0)" }
        }
        if !participants.isEmpty {
            lines.append("participants:")
            lines += participants.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
