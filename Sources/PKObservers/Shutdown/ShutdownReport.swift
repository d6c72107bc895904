#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What happened during a shutdown: why it began, what finished in the grace period, and what was still running
/// when the grace period ended.
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
        /// ``ShutdownCoordinator/handleSignals(_:)``.
        case signal(Int32)

        /// `"requested"`, or the signal's name such as `"SIGTERM"`.
        public var description: String {
            switch self {
            case .requested: "requested"
            case .signal(let number): Self.name(ofSignal: number)
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

    /// What started the shutdown.
    public let reason: Reason
    /// How many handled signals arrived, the one that started the shutdown included.
    public let signalsReceived: Int
    /// The procedures that finished during the grace period, in the order they finished.
    public let finishedDuringGracePeriod: [String]
    /// The procedures still running when the grace period ended, in the order they were attached; empty when
    /// everything finished in time.
    public let stragglers: [Straggler]

    /// Creates a report.
    public init(
        reason: Reason, signalsReceived: Int = 0, finishedDuringGracePeriod: [String] = [], stragglers: [Straggler] = []
    ) {
        self.reason = reason
        self.signalsReceived = signalsReceived
        self.finishedDuringGracePeriod = finishedDuringGracePeriod
        self.stragglers = stragglers
    }

    /// The names of the procedures still running when the coordinator stopped waiting.
    public var stillRunning: [String] { stragglers.filter { !$0.finished }.map(\.name) }

    /// `true` when nothing was still running when the coordinator stopped waiting.
    public var isComplete: Bool { stragglers.allSatisfy(\.finished) }

    /// A few lines: the reason, what finished in the grace period, and each straggler.
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
        return lines.joined(separator: "\n")
    }
}
