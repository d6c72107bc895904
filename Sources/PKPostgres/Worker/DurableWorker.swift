#if Postgres
    import Dispatch
    import Foundation
    import PKCore
    import PKObservers
    import Synchronization

    /// A worker process's engine: claims jobs of the kinds registered on its ``DurableQueue`` and runs each as a
    /// normal procedure on a local `ProcedureQueue`, holding a lease on it that it renews while the procedure runs.
    ///
    /// - **Claiming**: `FOR UPDATE SKIP LOCKED`, only registered kinds (old and new workers coexist during a
    ///   deploy), woken by `LISTEN`/`NOTIFY` with a fallback poll every ``pollInterval``. A worker claims only as
    ///   many jobs as it has free slots, so every claimed job starts at once: no attempt is spent and no category
    ///   held by a job that waits. A job due for longer than ``starvationLimit`` is claimed before younger jobs of
    ///   any priority, and the exclusive categories it waits for are kept for it.
    /// - **Leases and fencing**: each claim takes a new fencing token; every state change names it, so an outcome
    ///   is recorded once even when a job was run twice. A lease that cannot be renewed cancels the local
    ///   procedure and its outcome is discarded. Renewal never waits for a row lock.
    /// - **Timeouts**: an attempt that runs longer than its timeout is cancelled and fails; one whose procedure
    ///   ignores a cancellation for a lease is given up so that it can run elsewhere (``Statistics/stuck``).
    /// - **Recovery**: the elected reaper (any worker holding an advisory lock) requeues jobs whose leases expired,
    ///   within about ``leaseDuration``, or fails them when their attempts are spent, in batches, on a connection
    ///   of its own.
    /// - **Shutdown**: ``shutdown(gracePeriod:)``, or a `ShutdownCoordinator` given at creation: stop claiming,
    ///   let running jobs finish, then cancel the rest and give them back without spending an attempt.
    ///
    /// Its database work runs on four threads of its own (claims, outcomes, heartbeats, maintenance), each with
    /// one connection; never on the cooperative pool or the procedure queue's threads. Thread-safe. A started
    /// worker keeps itself alive until it has stopped.
    public final class DurableWorker: Sendable {
        /// The name leases are taken under (shown in ``DurableJobSnapshot/leaseOwner``); unique per process.
        public let name: String
        /// The most jobs run at once.
        public let concurrency: Int
        /// How long a lease lasts without renewal; renewed every third of it.
        public let leaseDuration: Duration
        /// How often the worker looks for jobs when no notification arrives.
        public let pollInterval: Duration
        /// How long a due job may wait before it is claimed ahead of younger jobs of any priority, and the
        /// exclusive categories it waits for are kept for it: the bound on starvation.
        public let starvationLimit: Duration
        /// The named queues whose jobs the worker claims (jobs of its registered kinds in them), in the order given;
        /// ``DurableJobOptions/defaultQueue`` unless told otherwise. A paused queue is left alone until resumed.
        public let queues: [String]
        /// The most jobs of a named queue this worker runs at once, by queue (each at most ``concurrency``); a
        /// queue not named shares the worker's whole concurrency. Fleet-wide limits are the queue's own
        /// (``DurableQueue/setConcurrencyLimit(_:queue:)``).
        public let queueConcurrency: [String: Int]
        /// How long finished jobs are kept (``DurableRetention/standard`` unless told otherwise): the worker elected
        /// for maintenance deletes older ones.
        public let retention: DurableRetention
        /// The periodic jobs this worker enqueues when it is elected for maintenance: declare the same ones on
        /// every worker of the fleet.
        public let periodicJobs: [DurablePeriodicJob]
        /// The local queue the jobs' procedures run on: add queue observers or a trace recorder to it.
        public let procedureQueue: ProcedureQueue
        /// The queue whose kinds the worker runs.
        public let queue: DurableQueue

        let coordinator: ShutdownCoordinator?
        let state = PKMutex(WorkerStateMachine())
        let wakePipe = WakePipe()
        let outcomeLane: DatabaseLane
        let heartbeatLane: DatabaseLane
        /// The elected reaper's batches and the stranded-waiter sweep: never on the heartbeat's connection.
        let maintenanceLane: DatabaseLane
        /// Outcomes queued on the outcome thread that will free a slot (``enqueueOutcome(_:)``).
        let pendingOutcomes = Atomic<Int>(0)
        /// Fires at job deadlines (timeouts, and the grace after a cancellation).
        let deadlines = PKMutex<DeadlineTimer?>(nil)
        let stopWaiters = PKMutex<StopWaiters>(StopWaiters())
        let counters = PKMutex(Statistics())
        /// Heartbeats, lease renewals and claim statements (``metrics``).
        let metricCounters = PKMutex(DurableWorkerMetrics.Counters())
        /// When the elected worker last looked for finished jobs to delete (on the maintenance lane).
        let lastRetentionRun = PKMutex<ContinuousClock.Instant?>(nil)

        struct StopWaiters {
            /// Set as stopping finishes: every loop of the worker stops at its next look.
            var stopped = false
            /// Set once the lanes' work in flight is over and their connections closed: waiters resume then.
            var closed = false
            var continuations: [CheckedContinuation<Void, Never>] = []
            var semaphores: [DispatchSemaphore] = []
        }

        /// What the worker has done so far.
        public struct Statistics: Sendable, Hashable {
            /// Jobs claimed.
            public var claimed = 0
            /// Jobs recorded completed.
            public var completed = 0
            /// Attempts recorded failed (retried or not).
            public var failed = 0
            /// Jobs recorded cancelled.
            public var cancelled = 0
            /// Jobs given back at shutdown.
            public var released = 0
            /// Jobs that asked to run again later (``DurableJobControl/snooze(_:)``).
            public var snoozed = 0
            /// Outcomes discarded because the lease was lost.
            public var leasesLost = 0
            /// Expired leases this worker's reaper handled.
            public var reaped = 0
            /// Finished jobs this worker deleted for their retention's sake.
            public var pruned = 0
            /// Jobs this worker enqueued for periodic jobs' periods.
            public var periodicEnqueued = 0
            /// Periods of periodic jobs that passed without their job (missed while no worker was elected, or more
            /// than one between two checks).
            public var periodsSkipped = 0
            /// Attempts cancelled because they ran longer than their timeout.
            public var timedOut = 0
            /// Jobs this build could not read (a retry policy written by a newer version): given back without
            /// spending an attempt, and no longer claimed by this worker.
            public var unreadable = 0
            /// Now: jobs given up because their procedures did not stop after a cancellation (a timeout, a lost
            /// lease); each still takes one of the worker's slots until its procedure finishes.
            public var stuck = 0
        }

        /// Creates a worker for `queue`'s registered kinds.
        ///
        /// - Parameters:
        ///   - queue: The queue whose jobs the worker runs: its registered kinds, on its database.
        ///   - name: The lease owner's name; by default host name, process id and a random suffix.
        ///   - concurrency: The most jobs at once (at least 1).
        ///   - leaseDuration: How long a job stays this worker's without a heartbeat (default 30 s; at least
        ///     0.3 s). A crashed worker's jobs run again about this long after the crash.
        ///   - pollInterval: The fallback poll when no notification arrives (default 1 s; 10 ms to 60 s).
        ///   - starvationLimit: How long a due job may wait before it goes ahead of younger jobs of any priority
        ///     and keeps the exclusive categories it waits for (default 60 s; 1 ms to one day).
        ///   - queues: The named queues to claim from (default: ``DurableJobOptions/defaultQueue`` only).
        ///   - queueConcurrency: The most jobs of a named queue (one of `queues`) this worker runs at once.
        ///   - retention: How long finished jobs are kept (default ``DurableRetention/standard``: completed and
        ///     cancelled a day, failed a week); the one worker elected for maintenance deletes older ones.
        ///   - periodicJobs: Jobs to enqueue on a schedule, once per period across the fleet, by whichever worker is
        ///     elected for maintenance (names must differ).
        ///   - shutdownCoordinator: When given, shutdown follows it: the worker stops claiming as soon as shutdown
        ///     is requested, its running procedures are watched (`BackgroundObserver`, cancelled when the grace
        ///     period expires), and jobs cancelled by it are given back without spending an attempt.
        /// - Throws: ``DurableError/invalidOption(_:)`` for out-of-range values.
        public init(
            queue: DurableQueue, name: String? = nil, concurrency: Int = 4, leaseDuration: Duration = .seconds(30),
            pollInterval: Duration = .seconds(1), starvationLimit: Duration = .seconds(60),
            queues: [String] = [DurableJobOptions.defaultQueue], queueConcurrency: [String: Int] = [:],
            retention: DurableRetention = .standard, periodicJobs: [DurablePeriodicJob] = [],
            shutdownCoordinator: ShutdownCoordinator? = nil
        ) throws {
            for (name, limit) in queueConcurrency where !queues.contains(name) || limit < 1 || limit > concurrency {
                throw DurableError.invalidOption(
                    "queueConcurrency[\"\(name)\"] must name a queue the worker serves, with 1 to \(concurrency) jobs")
            }
            try retention.validate()
            guard Set(periodicJobs.map(\.name)).count == periodicJobs.count else {
                throw DurableError.invalidOption("two periodic jobs have the same name")
            }
            guard !queues.isEmpty, queues.count <= 1_000, queues.allSatisfy(DurableJobOptions.isValidQueueName) else {
                throw DurableError.invalidOption(
                    "queues must be 1 to 1,000 names of 1 to 64 bytes of letters, digits, '_', '-' and '.'")
            }
            guard concurrency >= 1, concurrency <= 10_000 else {
                throw DurableError.invalidOption("concurrency must be between 1 and 10,000, not \(concurrency)")
            }
            guard leaseDuration >= .milliseconds(300), leaseDuration <= .seconds(86_400) else {
                throw DurableError.invalidOption("leaseDuration must be between 0.3 s and one day")
            }
            guard pollInterval >= .milliseconds(10), pollInterval <= .seconds(60) else {
                throw DurableError.invalidOption("pollInterval must be between 10 ms and 60 s")
            }
            guard starvationLimit >= .milliseconds(1), starvationLimit <= .seconds(86_400) else {
                throw DurableError.invalidOption("starvationLimit must be between 1 ms and one day")
            }
            let host = ProcessInfo.processInfo.hostName
            self.name = name ?? "\(host):\(getpid()):\(UInt16.random(in: 0...UInt16.max))"
            self.queue = queue
            self.concurrency = concurrency
            self.leaseDuration = leaseDuration
            self.pollInterval = pollInterval
            self.starvationLimit = starvationLimit
            var seen = Set<String>()
            self.queues = queues.filter { seen.insert($0).inserted }
            self.retention = retention
            self.queueConcurrency = queueConcurrency
            self.periodicJobs = periodicJobs
            coordinator = shutdownCoordinator
            procedureQueue = ProcedureQueue(name: "PKPostgres.DurableWorker", maxConcurrentOperationCount: concurrency)
            let migrator = queue.migrator
            outcomeLane = DatabaseLane(
                label: "PKPostgres.DurableWorker.outcomes", connectionString: queue.connectionString
            ) { try migrator.ensure($0) }
            // A heartbeat never waits for a row lock (SKIP LOCKED); these bound what else could hold it (a table
            // lock taken by a migration or by hand) to well under a lease.
            let lockTimeout = max(100, Int(Self.seconds(leaseDuration) * 1_000 / 6))
            let statementTimeout = max(1_000, Int(Self.seconds(leaseDuration) * 1_000 / 3))
            heartbeatLane = DatabaseLane(
                label: "PKPostgres.DurableWorker.heartbeat", connectionString: queue.connectionString
            ) { connection in
                try migrator.ensure(connection)
                try connection.execute("SET lock_timeout = \(lockTimeout)")
                try connection.execute("SET statement_timeout = \(statementTimeout)")
            }
            maintenanceLane = DatabaseLane(
                label: "PKPostgres.DurableWorker.maintenance", connectionString: queue.connectionString
            ) { try migrator.ensure($0) }
        }

        /// What the worker has done so far.
        public var statistics: Statistics {
            let stuck = state.withLock { $0.stuckCount }
            var statistics = counters.withLock { $0 }
            statistics.stuck = stuck
            return statistics
        }

        /// The jobs running now.
        public var runningJobs: [JobID] { state.withLock { $0.jobIDs } }

        /// Starts claiming and running jobs. Does nothing when already started or stopped.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` when the queue has no registered kind.
        public func start() throws {
            guard !queue.registeredKinds.isEmpty else {
                throw DurableError.invalidOption("register at least one procedure type before starting a worker")
            }
            guard state.withLock({ $0.start() }) else { return }
            deadlines.withLock { $0 = DeadlineTimer { [weak self] in self?.deadlinesPassed() } }
            let thread = Thread { [self] in claimLoop() }
            thread.name = "PKPostgres.DurableWorker.claims"
            thread.start()
            heartbeatLane.queue.async { [self] in announce() }
            startHeartbeat()
            startJournalFlush()
            startMaintenance()
            startPeriodicChecks()
        }

        /// Stops claiming, waits up to `gracePeriod` for running jobs to finish, then cancels the rest and gives
        /// them back to the queue without spending an attempt. Returns at once; ``waitUntilStopped()`` waits.
        public func shutdown(gracePeriod: Duration = .seconds(10)) {
            perform(state.withLock { $0.shutdown(cancelRunning: false, now: .now, grace: leaseDuration) }.action)
            wakePipe.wake()
            let seconds = Self.seconds(gracePeriod)
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, min(seconds, 86_400))) { [weak self] in
                self?.cancelForShutdown()
            }
        }

        /// Cancels the running jobs now for shutdown (they are given back without spending an attempt).
        func cancelForShutdown() {
            let (procedures, action) = state.withLock {
                $0.shutdown(cancelRunning: true, now: .now, grace: leaseDuration)
            }
            for procedure in procedures { procedure.cancel(with: DurableError.workerShuttingDown) }
            scheduleDeadlines()
            perform(action)
        }

        /// Suspends until the worker has stopped: no claim loop, no job left, outcomes recorded.
        public func waitUntilStopped() async {
            await withCheckedContinuation { continuation in
                let resumeNow = stopWaiters.withLock { waiters -> Bool in
                    if waiters.closed { return true }
                    waiters.continuations.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        /// Blocks until the worker has stopped, or `timeout` passes; returns whether it stopped.
        @available(*, noasync, message: "blocks its thread; use waitUntilStopped()")
        public func syncWaitUntilStopped(timeout: Duration = .seconds(3_600)) -> Bool {
            let semaphore = DispatchSemaphore(value: 0)
            let stopped = stopWaiters.withLock { waiters -> Bool in
                if waiters.closed { return true }
                waiters.semaphores.append(semaphore)
                return false
            }
            if stopped { return true }
            return semaphore.wait(timeout: .now() + Self.seconds(timeout)) == .success
        }

        func perform(_ action: WorkerStateMachine.Action) {
            switch action {
            case .none:
                break
            case .finishStopping:
                stopWaiters.withLock { $0.stopped = true }
                // Stopped means stopped: the waiters hear of it once the work in flight on the lanes (a last
                // outcome, a maintenance transaction, a periodic job's check) is over and their connections closed.
                let lanesClosed = DispatchGroup()
                // Its row goes (best effort: a worker that cannot reach the database is forgotten after an hour).
                heartbeatLane.queue.async(group: lanesClosed) { [self] in
                    do {
                        try heartbeatLane.onQueue { try queue.store.workerGone(name, $0) }
                    } catch {
                        log(.info, "could not delete the worker's row: \(error)")
                    }
                }
                outcomeLane.close(in: lanesClosed)
                heartbeatLane.close(in: lanesClosed)
                maintenanceLane.close(in: lanesClosed)
                deadlines.withLock { $0.take() }?.stop()
                lanesClosed.notify(queue: .global()) { [self] in
                    let waiters = stopWaiters.withLock { waiters in
                        defer { waiters = StopWaiters(stopped: true, closed: true) }
                        return waiters
                    }
                    for continuation in waiters.continuations { continuation.resume() }
                    for semaphore in waiters.semaphores { semaphore.signal() }
                }
            }
        }

        static func seconds(_ duration: Duration) -> TimeInterval {
            duration.timeInterval
        }

        func log(_ severity: LogSeverity, _ message: @autoclosure () -> String) {
            Log.write(severity, "DurableWorker \(name): \(message())", subsystem: "PKPostgres")
        }
    }
#endif
