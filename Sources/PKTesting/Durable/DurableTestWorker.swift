#if Postgres
    import Foundation
    import PKCore
    import PKPostgres

    /// Runs one durable job's attempt inline, in a test, through a real ``/PKPostgres/DurableWorker``: the same
    /// claim, lease, heartbeat, timeout and outcome code as a worker process, against the same database.
    ///
    /// ```swift
    /// let worker = DurableTestWorker(queue: queue)
    /// let job = try await worker.work(Resize.self, input: request)
    /// #expect(job.state == .completed)
    /// let image = try worker.output(of: job, as: Resize.self)
    /// ```
    ///
    /// Each call runs **one attempt** and returns the job as that attempt left it, the way a worker records it:
    /// ``/PKPostgres/JobState/completed``; ``/PKPostgres/JobState/available`` again after a failed attempt the retry
    /// policy allows another of (its `runAt` pushed back as the policy says) or after a snooze (its attempt not
    /// spent, its `runAt` the snooze's end); ``/PKPostgres/JobState/failed`` when the attempts are spent or the
    /// job discarded itself; ``/PKPostgres/JobState/cancelled``. Run the next attempt with ``work(_:as:)``, which
    /// waits until it is due.
    ///
    /// How: the job is put in a named queue of the call's own (`pktesting.` and random digits), and a temporary
    /// worker serving only that queue, with only the procedure's type registered, claims it; the worker shuts down
    /// as it starts the job, so it claims nothing else and never the same job twice, and the call returns once it
    /// has stopped, with the job's outcome recorded and nothing of the worker left running. The job is then put
    /// back in its own named queue. Don't run another worker of its queue meanwhile: it could claim the job first.
    ///
    /// The temporary worker may be elected for maintenance, as any worker: it then requeues jobs whose leases
    /// expired, but deletes no finished job (its retention is ``/PKPostgres/DurableRetention/keepForever``).
    ///
    /// Thread-safe: calls may run concurrently, each with its own worker.
    public final class DurableTestWorker: Sendable {
        /// Why ``DurableTestWorker/work(_:input:options:)`` or ``DurableTestWorker/work(_:as:)`` did not run a job.
        public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
            /// The job's attempt did not start within the timeout: it was not due yet (a later `runAt`, a retry's
            /// wait, a snooze), waited for its dependencies or an exclusive category, or its input source has no
            /// output. A job the call enqueued was cancelled; a job run by id was left as it was.
            case notStarted(JobID, after: Duration)
            /// The attempt did not finish within the timeout: the worker cancelled its procedure and gave the job
            /// back without spending the attempt. A job the call enqueued was then cancelled.
            case timedOut(JobID, after: Duration)
            /// The job runs already, or has finished.
            case notRunnable(JobID, state: JobState)
            /// The job is of another kind than the procedure type given.
            case kindMismatch(JobID, kind: String, expected: String)
            /// The options' unique key is held by this job, so nothing was enqueued: run that one by id if that is
            /// what the test means.
            case uniqueKeyTaken(by: JobID)

            /// What went wrong, in words.
            public var description: String {
                switch self {
                case .notStarted(let id, let timeout):
                    "\(id) did not start within \(timeout.components.seconds) s (not due, or waiting for a dependency "
                        + "or an exclusive category)"
                case .timedOut(let id, let timeout):
                    "\(id) did not finish within \(timeout.components.seconds) s; its procedure was cancelled"
                case .notRunnable(let id, let state): "\(id) cannot be run: it is \(state)"
                case .kindMismatch(let id, let kind, let expected): "\(id) is a \(kind) job, not a \(expected) job"
                case .uniqueKeyTaken(let id): "the unique key is held by \(id), so nothing was enqueued"
                }
            }
        }

        /// The queue whose database the jobs are in, and through which they are enqueued.
        public let queue: DurableQueue
        /// How long a call waits for its job's attempt to start and finish.
        public let timeout: Duration

        /// The temporary workers and their queues, tracked weakly: this package's tests check that none outlives
        /// its call.
        package let temporaries = LeakCheck()

        /// Creates a test worker for jobs on `queue`'s database.
        ///
        /// - Parameters:
        ///   - queue: The queue the jobs are enqueued on (it needs nothing registered: each call registers the type
        ///     it runs on a queue of its own).
        ///   - timeout: How long a call waits for the attempt to start and finish (default a minute); past it,
        ///     the call stops its worker and throws ``Failure``.
        public init(queue: DurableQueue, timeout: Duration = .seconds(60)) {
            self.queue = queue
            self.timeout = timeout
        }

        /// Enqueues a job of `type` with `input` and `options` and runs its first attempt now, through a real
        /// worker; returns the job as the attempt left it (see ``DurableTestWorker``).
        ///
        /// The job is enqueued with `options` as given, except that its named queue is the call's own until the
        /// attempt is over, when it is put in `options.queue`: a job to be retried or snoozed waits there. It starts
        /// once it is due, so a `runAt` in the future makes the call wait for it (up to the timeout). Cancelling the
        /// calling task stops the worker (the job's procedure is cancelled, the job given back and then cancelled)
        /// and throws `CancellationError`.
        ///
        /// - Throws: ``Failure``; `DurableError` for bad options or an unencodable input; `PostgresError` when the
        ///   database fails.
        public func work<P: DurableProcedure>(
            _ type: P.Type, input: P.Input, options: DurableJobOptions = DurableJobOptions()
        ) async throws -> DurableJobSnapshot {
            // Checked now: the job is put in its queue only once its attempt is over.
            try DurableJobOptions.validateQueueName(options.queue)
            let own = Self.ownQueueName()
            var placed = options
            placed.queue = own
            let id = try await queue.enqueue(type, input: input, options: placed)
            guard try await queue.job(id).queue == own else { throw Failure.uniqueKeyTaken(by: id) }
            do {
                return try await attempt(id, of: type, in: own, thenIn: options.queue)
            } catch let error as Failure {
                _ = try await queue.cancel(id)
                throw error
            } catch is CancellationError {
                _ = try await queue.cancel(id)
                throw CancellationError()
            }
        }

        /// Runs the next attempt of job `id`, already enqueued (by the code under test, or an earlier call), through
        /// a real worker, keeping its id; returns the job as the attempt left it (see ``DurableTestWorker``).
        ///
        /// The job is put in the call's own named queue for the attempt and back in its own afterwards, whatever
        /// happens. It starts once it is due: after a failed attempt, the retry policy's wait first. Cancelling the
        /// calling task stops the worker (the job's procedure is cancelled and the job given back) and throws
        /// `CancellationError`.
        ///
        /// - Throws: ``Failure``; `DurableError.jobNotFound(_:)`; `PostgresError` when the database fails.
        public func work<P: DurableProcedure>(_ id: JobID, as type: P.Type) async throws -> DurableJobSnapshot {
            let job = try await queue.job(id)
            guard job.kind == P.kind else { throw Failure.kindMismatch(id, kind: job.kind, expected: P.kind) }
            let own = Self.ownQueueName()
            guard let home = try await queue.moveUnstartedJob(id, toQueue: own) else {
                throw Failure.notRunnable(id, state: try await queue.job(id).state)
            }
            return try await attempt(id, of: type, in: own, thenIn: home)
        }

        /// The output of `job`, a job of `type` that completed, decoded.
        ///
        /// - Throws: `DurableError.jobCancelled(_:errors:)` for a cancelled job, `DurableError.jobFailed(_:errors:)`
        ///   for any other that did not complete (one to be retried included), with its error history;
        ///   `DurableError.undecodableOutput(_:reason:)`.
        public func output<P: DurableProcedure>(of job: DurableJobSnapshot, as type: P.Type) throws -> P.Output {
            switch job.state {
            case .completed:
                do {
                    return try JSONDecoder().decode(P.Output.self, from: Data((job.outputJSON ?? "null").utf8))
                } catch {
                    throw DurableError.undecodableOutput(job.id, reason: "\(error)")
                }
            case .cancelled:
                throw DurableError.jobCancelled(job.id, errors: job.errors)
            case .failed, .blocked, .available, .running:
                throw DurableError.jobFailed(job.id, errors: job.errors)
            }
        }

        // MARK: - One attempt

        /// A named queue no other call or worker serves.
        private static func ownQueueName() -> String {
            "pktesting." + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        }

        /// Runs one attempt of job `id`, waiting in the named queue `own`, then puts it in the named queue `home`.
        private func attempt<P: DurableProcedure>(
            _ id: JobID, of type: P.Type, in own: String, thenIn home: String
        ) async throws -> DurableJobSnapshot {
            let statistics: DurableWorker.Statistics
            do {
                statistics = try await runWorker(for: type, serving: own)
            } catch {
                try await queue.setQueue(of: id, to: home)
                throw error
            }
            try await queue.setQueue(of: id, to: home)
            if Task.isCancelled { throw CancellationError() }
            if statistics.claimed == 0 { throw Failure.notStarted(id, after: timeout) }
            if statistics.released > 0 { throw Failure.timedOut(id, after: timeout) }
            return try await queue.job(id)
        }

        /// Runs a worker of `type` serving the named queue `own` until it has started one job and recorded its
        /// outcome, or until the timeout (or the task's cancellation) stops it; returns what it did.
        private func runWorker<P: DurableProcedure>(for type: P.Type, serving own: String) async throws
            -> DurableWorker.Statistics
        {
            // A queue of the call's own, so that the worker runs `type` whatever the caller's queue registered; the
            // enqueue above migrated the schema already.
            let runner = try DurableQueue(
                connectionString: queue.connectionString, schema: queue.schema, migration: .manual)
            try runner.register(type)
            let worker = try DurableWorker(
                queue: runner, name: "pktesting-\(own.dropFirst("pktesting.".count))", concurrency: 1,
                pollInterval: .milliseconds(50), queues: [own], retention: .keepForever)
            temporaries.track(worker, name: "the temporary worker \(worker.name)")
            temporaries.track(runner, name: "the temporary worker's queue")
            // Shutting down as the first procedure is added to the worker's queue (on its claim thread, before it
            // could claim again) lets that job finish and have its outcome recorded, and claims nothing more.
            let grace = timeout
            let stopAtFirstJob = FirstJobObserver { [weak worker] in worker?.shutdown(gracePeriod: grace) }
            worker.procedureQueue.addObserver(stopAtFirstJob)
            try worker.start()
            let timeout = self.timeout
            let deadline = Task { [weak worker] in
                // A job that ends without a procedure (its input does not decode) adds none to the worker's queue:
                // the worker is stopped once its outcome is counted, instead of at the timeout.
                let end = ContinuousClock.now + timeout
                while ContinuousClock.now < end {
                    try await Task.sleep(for: .milliseconds(50))
                    guard let statistics = worker?.statistics else { return }
                    if Self.outcomes(statistics) > 0 { break }
                }
                worker?.shutdown(gracePeriod: .zero)
            }
            await withTaskCancellationHandler {
                await worker.waitUntilStopped()
            } onCancel: { [weak worker] in
                worker?.shutdown(gracePeriod: .zero)
            }
            deadline.cancel()
            withExtendedLifetime(stopAtFirstJob) {}
            return worker.statistics
        }

        /// The outcomes `statistics` counts, whatever they were.
        private static func outcomes(_ statistics: DurableWorker.Statistics) -> Int {
            statistics.completed + statistics.failed + statistics.cancelled + statistics.released
                + statistics.snoozed + statistics.leasesLost
        }
    }

    /// Calls its closure when a procedure is about to be added to the queue it observes: on the worker's claim
    /// thread, inside `ProcedureQueue.add`.
    private final class FirstJobObserver: EventSelectingQueueObserver {
        private let action: @Sendable () -> Void

        init(_ action: @escaping @Sendable () -> Void) { self.action = action }

        var observedQueueEvents: QueueEventKinds { .willAddProcedure }

        func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?) {
            action()
        }
    }
#endif
