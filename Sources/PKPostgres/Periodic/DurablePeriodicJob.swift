#if Postgres
    import Foundation
    import PKCore

    /// A job enqueued on a schedule, once per period across the whole fleet: declare it on every worker
    /// (``DurableWorker/periodicJobs``); whichever worker is elected for maintenance enqueues each period's job.
    ///
    /// ```swift
    /// let nightly = try DurablePeriodicJob(
    ///     name: "nightly-report", schedule: .cron("0 2 * * *", timeZone: TimeZone(identifier: "Europe/Paris")!),
    ///     BuildReport.self, input: ReportRequest(scope: .all))
    /// let worker = try DurableWorker(queue: queue, periodicJobs: [nightly])
    /// ```
    ///
    /// Exactly once per period: the schedule's last period is kept in the schema's `periodic` table, locked while a
    /// period's job is enqueued in the same transaction, and each job's unique key names its period; a worker that
    /// dies while elected is replaced by the next one to run its maintenance, which takes over from the table. The
    /// job learns its period from ``DurableJobInfo/periodStart``, the same on every attempt.
    public struct DurablePeriodicJob: Sendable, Hashable {
        /// What happens to periods that passed while no worker was elected (the fleet was down).
        public enum MissedPeriods: Sendable, Hashable {
            /// The latest missed period runs once, as soon as a worker is elected (the default); earlier ones do not.
            case runLatest
            /// Missed periods do not run; the next one runs at its time. A period is missed when its job could not
            /// be enqueued within a lease of its time.
            case skip
        }

        /// The name that identifies it across the fleet and across deploys: keep it when you change anything else.
        public let name: String
        /// When it runs.
        public let schedule: DurableSchedule
        /// Whether the fleet runs it at once the first time it sees it (before its first period), or only from its
        /// first period on (the default).
        public let runOnStart: Bool
        /// What happens to periods missed while no worker was elected.
        public let missedPeriods: MissedPeriods
        /// The kind of the job it enqueues.
        public let kind: String
        let input: String
        let options: DurableJobOptions

        /// Declares a periodic job of `type` with `input` and `options` (any but a unique key, dependencies or an
        /// input source).
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for a name that is empty or longer than 200 bytes, or
        ///   options a periodic job cannot take; ``DurableError/unencodableValue(reason:)``.
        public init<P: DurableProcedure>(
            name: String, schedule: DurableSchedule, _ type: P.Type, input: P.Input,
            options: DurableJobOptions = DurableJobOptions(), runOnStart: Bool = false,
            missedPeriods: MissedPeriods = .runLatest
        ) throws {
            guard !name.isEmpty, name.utf8.count <= 200 else {
                throw DurableError.invalidOption("a periodic job's name must have 1 to 200 bytes")
            }
            try options.validate()
            guard options.uniqueKey == nil, options.unique == nil, options.allDependencies.isEmpty else {
                throw DurableError.invalidOption(
                    "a periodic job takes no unique key (each period's job has its own), dependencies or input source")
            }
            self.name = name
            self.schedule = schedule
            self.runOnStart = runOnStart
            self.missedPeriods = missedPeriods
            kind = P.kind
            self.input = try DurableCoding.encode(input)
            self.options = options
        }

        /// The job of the period that began at `period`.
        func job(for period: Date) -> DurableStore.NewJob {
            var options = options
            options.uniqueKey = "periodic:\(name):\(Int64((period.timeIntervalSince1970 * 1_000).rounded()))"
            options.runAt = nil
            return DurableStore.NewJob(kind: kind, input: input, options: options, graph: nil, periodStart: period)
        }
    }
#endif
