#if Postgres
    import Foundation

    /// How big and how disturbed a ``FleetChaosRun`` is.
    struct FleetLevel: Sendable, CustomStringConvertible {
        var name: String
        var jobs: Int
        /// Worker processes running at once.
        var workers: Int
        var concurrency: Int
        var leaseMilliseconds: Int
        var workMilliseconds: Int
        /// The chance that a job fails some of its first attempts (1 to ``failAttempts``), as planned at enqueue.
        var failRate: Double
        var failAttempts: Int
        /// Each job's most attempts: far more than planned failures and kills can spend, so that only doomed jobs
        /// fail.
        var maxAttempts: Int
        /// The chance that a job nothing depends on is planned to fail every attempt.
        var doomedRate: Double
        /// How long a failed job waits before its next attempt: none (or `PK_FLEET_RETRY_WAIT_MS`), so that a worker
        /// often claims a job again while it is still recording the job's previous attempt (both runs held, each
        /// by its own lease token; keyed by job id alone, the older run's end once lost the newer one).
        var retryWaitMilliseconds =
            ProcessInfo.processInfo.environment["PK_FLEET_RETRY_WAIT_MS"].flatMap(Int.init) ?? 0
        /// The most workers killed with SIGKILL (each replaced).
        var kills: Int
        /// The most rounds of `pg_terminate_backend`.
        var terminations: Int
        /// The most workers stopped with SIGTERM mid-run (each replaced).
        var stops: Int
        /// The pause between two disturbances, in seconds.
        var pause: ClosedRange<Double>
        /// The longest the jobs may take to finish: a hang guard.
        var hangGuard: TimeInterval

        /// `PK_FLEET_LEVEL=heavy`, or the CI level.
        static var current: FleetLevel {
            ProcessInfo.processInfo.environment["PK_FLEET_LEVEL"] == "heavy" ? heavy : ci
        }

        static let ci = FleetLevel(
            name: "ci", jobs: 600, workers: 3, concurrency: 3, leaseMilliseconds: 3_000, workMilliseconds: 200,
            failRate: 0.15, failAttempts: 2, maxAttempts: 8, doomedRate: 0.05, kills: 6, terminations: 15, stops: 2,
            pause: 0.4...1.6, hangGuard: 300)

        static let heavy = FleetLevel(
            name: "heavy", jobs: 10_000, workers: 4, concurrency: 4, leaseMilliseconds: 2_000, workMilliseconds: 200,
            failRate: 0.15, failAttempts: 2, maxAttempts: 8, doomedRate: 0.05, kills: 60, terminations: 250,
            stops: 15, pause: 0.3...2, hangGuard: 1_800)

        var description: String {
            "\(name): \(jobs) jobs, \(workers) workers × \(concurrency), lease \(leaseMilliseconds) ms, "
                + "work \(workMilliseconds) ms, retry wait \(retryWaitMilliseconds) ms"
        }
    }
#endif
