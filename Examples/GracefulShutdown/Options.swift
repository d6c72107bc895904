// The command line of GracefulShutdown: every flag has a default, so that running it with no arguments shows the
// whole shutdown sequence in under two seconds.

/// What the command line asked for; times are in seconds.
struct Options: Equatable {
    /// Shut down by request after this long unless a signal came first; `nil` (`--wait-for-signal`) waits for a
    /// signal however long it takes.
    var shutdownAfter: Double? = 0.3
    /// The coordinator's grace period.
    var gracePeriod = 0.7
    /// The coordinator's cancellation period.
    var cancellationPeriod = 3.0
    /// How long the upload (never cancelled) takes.
    var uploadSeconds = 0.5
    /// How long the stubborn procedure (cancelled when the grace period expires, and ignoring it) takes.
    var stubbornSeconds = 1.6
    /// `--help` was given.
    var showHelp = false

    static let usage = """
        usage: GracefulShutdown [options]

        Starts three procedures watched by a BackgroundObserver (an upload that is never cancelled, a poller
        cancelled when shutdown is requested, and a stubborn job cancelled when the grace period expires, which
        ignores its cancellation) and four services that take part in the shutdown (database, cache, metrics and
        http), prints "ready pid=<pid>" once the three procedures are running, shuts down gracefully on SIGTERM or
        SIGINT (a second signal ends the grace period at once, a third ends the wait) or when the poller fails
        (SIGUSR1 makes it lose its connection), stops the services one at a time (http, cache, database, then
        metrics), prints the report and exits.

        options (seconds; defaults in brackets):
          --shutdown-after S       shut down by request S after ready unless a signal came first [0.3]
          --wait-for-signal        never shut down by request: wait for a signal
          --grace S                the grace period [0.7]
          --cancellation-period S  the cancellation period [3]
          --upload-seconds S       how long the upload takes [0.5]
          --stubborn-seconds S     how long the stubborn job takes [1.6]
          --help                   print this and exit

        exit status: 0 when nothing was left running and nothing failed, 1 when a procedure or a service was still
        running when the wait ended, 2 when a failure shut the program down or a service failed to stop, 64 for a
        bad command line.
        """

    /// A command line this program does not understand.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Reads `arguments` (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--wait-for-signal": options.shutdownAfter = nil
            case "--help", "-h": options.showHelp = true
            case "--shutdown-after": options.shutdownAfter = try seconds(after: flag, from: &remaining)
            case "--grace": options.gracePeriod = try seconds(after: flag, from: &remaining)
            case "--cancellation-period": options.cancellationPeriod = try seconds(after: flag, from: &remaining)
            case "--upload-seconds": options.uploadSeconds = try seconds(after: flag, from: &remaining)
            case "--stubborn-seconds": options.stubbornSeconds = try seconds(after: flag, from: &remaining)
            default: throw UsageError(description: "unknown option \(flag)")
            }
        }
        return options
    }

    private static func seconds(after flag: String, from remaining: inout ArraySlice<String>) throws(UsageError)
        -> Double
    {
        guard let text = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw UsageError(description: "\(flag) needs a number of seconds, not \(text)")
        }
        return value
    }
}
