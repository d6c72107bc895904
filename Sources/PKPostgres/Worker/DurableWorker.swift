#if Postgres
    import Dispatch
    import Foundation
    import PKCore
    import PKObservers

    /// A worker process's engine: claims jobs of the kinds registered on its ``DurableQueue`` and runs each as a
    /// normal procedure on a local `ProcedureQueue`, holding a lease on it that it renews while the procedure runs.
    ///
    /// - **Claiming**: `FOR UPDATE SKIP LOCKED`, only registered kinds (old and new workers coexist during a
    ///   deploy), woken by `LISTEN`/`NOTIFY` with a fallback poll every ``pollInterval``. While jobs are waiting
    ///   in the database (a backlog), a worker holds up to twice ``concurrency`` jobs: the extra ones wait on its
    ///   local queue, leased, so that one claim serves several jobs.
    /// - **Leases and fencing**: each claim takes a new fencing token; every state change names it, so an outcome
    ///   is recorded once even when a job was run twice. A lease that cannot be renewed cancels the local
    ///   procedure and its outcome is discarded.
    /// - **Recovery**: the elected reaper (any worker holding an advisory lock) requeues jobs whose leases expired,
    ///   within about ``leaseDuration``, or fails them when their attempts are spent.
    /// - **Shutdown**: ``shutdown(gracePeriod:)``, or a `ShutdownCoordinator` given at creation: stop claiming,
    ///   let running jobs finish, then cancel the rest and give them back without spending an attempt.
    ///
    /// Its database work runs on three threads of its own (claims, outcomes, heartbeats), each with one
    /// connection; never on the cooperative pool or the procedure queue's threads. Thread-safe. A started worker
    /// keeps itself alive until it has stopped.
    public final class DurableWorker: Sendable {
        /// The name leases are taken under (shown in ``DurableJobSnapshot/leaseOwner``); unique per process.
        public let name: String
        /// The most jobs run at once.
        public let concurrency: Int
        /// How long a lease lasts without renewal; renewed every third of it.
        public let leaseDuration: Duration
        /// How often the worker looks for jobs when no notification arrives.
        public let pollInterval: Duration
        /// The local queue the jobs' procedures run on: add queue observers or a trace recorder to it.
        public let procedureQueue: ProcedureQueue
        /// The queue whose kinds the worker runs.
        public let queue: DurableQueue

        let coordinator: ShutdownCoordinator?
        let state = PKMutex(WorkerStateMachine())
        let wakePipe = WakePipe()
        let outcomeLane: DatabaseLane
        let heartbeatLane: DatabaseLane
        let stopWaiters = PKMutex<StopWaiters>(StopWaiters())
        let counters = PKMutex(Statistics())

        struct StopWaiters {
            var stopped = false
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
            /// Outcomes discarded because the lease was lost.
            public var leasesLost = 0
            /// Expired leases this worker's reaper handled.
            public var reaped = 0
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
        ///   - shutdownCoordinator: When given, shutdown follows it: the worker stops claiming as soon as shutdown
        ///     is requested, its running procedures are watched (`BackgroundObserver`, cancelled when the grace
        ///     period expires), and jobs cancelled by it are given back without spending an attempt.
        /// - Throws: ``DurableError/invalidOption(_:)`` for out-of-range values.
        public init(
            queue: DurableQueue, name: String? = nil, concurrency: Int = 4, leaseDuration: Duration = .seconds(30),
            pollInterval: Duration = .seconds(1), shutdownCoordinator: ShutdownCoordinator? = nil
        ) throws {
            guard concurrency >= 1, concurrency <= 10_000 else {
                throw DurableError.invalidOption("concurrency must be between 1 and 10,000, not \(concurrency)")
            }
            guard leaseDuration >= .milliseconds(300), leaseDuration <= .seconds(86_400) else {
                throw DurableError.invalidOption("leaseDuration must be between 0.3 s and one day")
            }
            guard pollInterval >= .milliseconds(10), pollInterval <= .seconds(60) else {
                throw DurableError.invalidOption("pollInterval must be between 10 ms and 60 s")
            }
            let host = ProcessInfo.processInfo.hostName
            self.name = name ?? "\(host):\(getpid()):\(UInt16.random(in: 0...UInt16.max))"
            self.queue = queue
            self.concurrency = concurrency
            self.leaseDuration = leaseDuration
            self.pollInterval = pollInterval
            coordinator = shutdownCoordinator
            procedureQueue = ProcedureQueue(name: "PKPostgres.DurableWorker", maxConcurrentOperationCount: concurrency)
            let migrator = queue.migrator
            outcomeLane = DatabaseLane(
                label: "PKPostgres.DurableWorker.outcomes", connectionString: queue.connectionString
            ) { try migrator.ensure($0) }
            heartbeatLane = DatabaseLane(
                label: "PKPostgres.DurableWorker.heartbeat", connectionString: queue.connectionString
            ) { try migrator.ensure($0) }
        }

        /// What the worker has done so far.
        public var statistics: Statistics { counters.withLock { $0 } }

        /// The jobs running now.
        public var runningJobs: [JobID] { state.withLock { Array($0.jobs.keys) }.sorted() }

        /// Starts claiming and running jobs. Does nothing when already started or stopped.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` when the queue has no registered kind.
        public func start() throws {
            guard !queue.registeredKinds.isEmpty else {
                throw DurableError.invalidOption("register at least one procedure type before starting a worker")
            }
            guard state.withLock({ $0.start() }) else { return }
            let thread = Thread { [self] in claimLoop() }
            thread.name = "PKPostgres.DurableWorker.claims"
            thread.start()
            startHeartbeat()
        }

        /// Stops claiming, waits up to `gracePeriod` for running jobs to finish, then cancels the rest and gives
        /// them back to the queue without spending an attempt. Returns at once; ``waitUntilStopped()`` waits.
        public func shutdown(gracePeriod: Duration = .seconds(10)) {
            perform(state.withLock { $0.shutdown(cancelRunning: false) }.action)
            wakePipe.wake()
            let seconds = Self.seconds(gracePeriod)
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, min(seconds, 86_400))) { [weak self] in
                self?.cancelForShutdown()
            }
        }

        /// Cancels the running jobs now for shutdown (they are given back without spending an attempt).
        func cancelForShutdown() {
            let (procedures, action) = state.withLock { $0.shutdown(cancelRunning: true) }
            for procedure in procedures { procedure.cancel(with: DurableError.workerShuttingDown) }
            perform(action)
        }

        /// Suspends until the worker has stopped: no claim loop, no job left, outcomes recorded.
        public func waitUntilStopped() async {
            await withCheckedContinuation { continuation in
                let resumeNow = stopWaiters.withLock { waiters -> Bool in
                    if waiters.stopped { return true }
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
                if waiters.stopped { return true }
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
                let waiters = stopWaiters.withLock { waiters in
                    waiters.stopped = true
                    defer { waiters = StopWaiters(stopped: true) }
                    return waiters
                }
                outcomeLane.close()
                heartbeatLane.close()
                for continuation in waiters.continuations { continuation.resume() }
                for semaphore in waiters.semaphores { semaphore.signal() }
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
