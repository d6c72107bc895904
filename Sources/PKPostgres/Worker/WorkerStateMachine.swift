#if Postgres
    import PKCore

    /// The life of a ``DurableWorker`` and of the jobs it holds, as a value: no locks, no threads, no clocks (the
    /// owner passes instants in).
    ///
    /// ```
    /// idle ─start─▶ running ─shutdown─▶ draining ─(claim loop ended, no job left)─▶ stopped
    /// ```
    /// A job enters at its claim and leaves once its outcome is recorded (or, given up, once its procedure has
    /// finished). Jobs are kept by their lease token, unique to a claim: a job given up (or whose lease was lost)
    /// whose procedure still runs may be claimed again by the same worker, and both runs are held. On the way a
    /// job is in one ``Stage``:
    /// ```
    /// running ─(procedure finished)─▶ recording ─(outcome recorded)─▶ gone
    ///    └──(deadline passed after a cancellation)─▶ abandoned ─(procedure finished)─▶ gone
    /// ```
    /// Why the worker cancelled a job, if it did, is kept with it, because that decides the outcome (lease lost:
    /// record nothing; cancel requested: cancelled; shutdown: released without spending the attempt; timed out:
    /// a failed attempt).
    struct WorkerStateMachine {
        enum Phase: Equatable {
            case idle
            case running
            case draining
            case stopped
        }

        /// Why the worker cancelled a job's procedure.
        enum CancelCause: Equatable {
            case leaseLost
            case cancelRequested
            case shutdown
            case timedOut
        }

        /// Where a held job is.
        enum Stage: Equatable {
            /// Its procedure runs.
            case running
            /// Its procedure finished (or never started, for a job given back unread): the outcome is being
            /// recorded. Its lease is still renewed.
            case recording
            /// Its procedure was cancelled and did not stop by its deadline: the job was given up (its outcome
            /// recorded, or, for a lost lease, nothing to record) and is no longer renewed, but the procedure still
            /// takes a slot until it finishes.
            case abandoned
        }

        struct Job {
            let claimed: DurableStore.ClaimedJob
            /// `nil` for a job given back without running (this build cannot read it).
            let procedure: Procedure?
            /// The metadata and progress its procedure records (``DurableJobInfo/journal``).
            var journal: DurableJobJournal? = nil
            /// How long an attempt may run.
            let timeout: Duration
            var cause: CancelCause?
            var stage: Stage
            /// This worker's estimate of when the lease ends, by its own monotonic clock: never later than the
            /// database's (it counts from before the statement that took or renewed the lease was sent).
            var leaseEnds: ContinuousClock.Instant
            /// While running: when the procedure is cancelled for its timeout, or, once cancelled for any cause,
            /// when it is given up if it has not finished.
            var deadline: ContinuousClock.Instant?
        }

        private(set) var phase: Phase = .idle
        /// The jobs held, by lease token.
        private(set) var jobs: [Int64: Job] = [:]
        private(set) var claimLoopRunning = false

        /// What the owner does after an event.
        enum Action: Equatable {
            case none
            /// Stop the heartbeat, close the connections, resume the waiters.
            case finishStopping
        }

        /// What to do about a deadline that passed.
        enum DeadlineAction {
            /// Cancel the procedure: its attempt ran longer than `timeout`.
            case cancelForTimeout(DurableStore.ClaimedJob, Procedure, timeout: Duration)
            /// The procedure did not stop after being cancelled for `cause`: give the job up (record what `cause`
            /// calls for) and leave its procedure to finish in its slot.
            case giveUp(DurableStore.ClaimedJob, cause: CancelCause, timeout: Duration)
        }

        mutating func start() -> Bool {
            switch phase {
            case .idle:
                phase = .running
                claimLoopRunning = true
                return true
            case .running, .draining, .stopped:
                return false
            }
        }

        /// Begins the shutdown; when `cancelRunning`, returns the procedures to cancel now, whose deadline becomes
        /// `now + grace` at the latest.
        mutating func shutdown(cancelRunning: Bool, now: ContinuousClock.Instant, grace: Duration)
            -> (procedures: [Procedure], action: Action)
        {
            switch phase {
            case .idle:
                phase = .stopped
                return ([], .finishStopping)
            case .running, .draining:
                phase = .draining
                guard cancelRunning else { return ([], stopIfDone()) }
                var procedures: [Procedure] = []
                for (token, job) in jobs where job.cause == nil && job.stage == .running {
                    guard let procedure = cancel(token: token, cause: .shutdown, now: now, grace: grace) else {
                        continue
                    }
                    procedures.append(procedure)
                }
                return (procedures, stopIfDone())
            case .stopped:
                return ([], .none)
            }
        }

        /// How many jobs the claim loop asks for now: as many as there are free slots (a slot stays taken by a
        /// job until its outcome is recorded, or by a given-up procedure until it finishes); 0 once shutting down.
        /// Jobs are claimed only to start at once, so no attempt is spent and no category held by a job that
        /// waits on this worker.
        /// How many jobs of each named queue the worker holds now.
        var jobsByQueue: [String: Int] {
            var counts: [String: Int] = [:]
            for job in jobs.values { counts[job.claimed.queue, default: 0] += 1 }
            return counts
        }

        func claimLimit(concurrency: Int) -> Int {
            phase == .running ? max(0, concurrency - jobs.count) : 0
        }

        /// A claimed job whose procedure starts now (or, with `procedure` `nil`, a job to give back unread, whose
        /// outcome is recorded at once).
        mutating func claimed(
            _ job: DurableStore.ClaimedJob, procedure: Procedure?, journal: DurableJobJournal? = nil, timeout: Duration,
            leaseEnds: ContinuousClock.Instant, now: ContinuousClock.Instant
        ) {
            jobs[job.token] = Job(
                claimed: job, procedure: procedure, journal: journal, timeout: timeout, cause: nil,
                stage: procedure == nil ? .recording : .running, leaseEnds: leaseEnds,
                deadline: procedure == nil ? nil : now + timeout)
        }

        /// Marks the job claimed with `token` cancelled for `cause`; returns its procedure when it was running and
        /// not already cancelled by the worker. Its deadline becomes `now + grace` at the latest.
        mutating func cancel(token: Int64, cause: CancelCause, now: ContinuousClock.Instant, grace: Duration)
            -> Procedure?
        {
            guard var job = jobs[token], job.cause == nil, job.stage == .running, let procedure = job.procedure else {
                return nil
            }
            job.cause = cause
            job.deadline = min(job.deadline ?? now + grace, now + grace)
            jobs[token] = job
            return procedure
        }

        /// ``cancel(token:cause:now:grace:)`` for every run of job `id` the worker holds (a job cancelled by
        /// request is named by its id).
        mutating func cancel(_ id: JobID, cause: CancelCause, now: ContinuousClock.Instant, grace: Duration)
            -> [Procedure]
        {
            jobs.filter { $0.value.claimed.id == id }.keys.compactMap {
                cancel(token: $0, cause: cause, now: now, grace: grace)
            }
        }

        func cause(of token: Int64) -> CancelCause? { jobs[token]?.cause }

        /// The jobs whose procedures run, with what they record: the progress flush's work.
        var journals: [(job: DurableStore.ClaimedJob, procedure: Procedure, journal: DurableJobJournal)] {
            jobs.values.compactMap { job in
                guard job.stage == .running, let procedure = job.procedure, let journal = job.journal else {
                    return nil
                }
                return (job.claimed, procedure, journal)
            }
        }

        func stage(of token: Int64) -> Stage? { jobs[token]?.stage }

        /// The jobs held, each once, in order.
        var jobIDs: [JobID] { Set(jobs.values.map(\.claimed.id)).sorted() }

        /// The job's procedure finished: its outcome is recorded next. Returns `false` when the job was given up
        /// (its outcome already recorded, or not to be): then nothing is recorded, the slot is just freed.
        mutating func procedureFinished(_ token: Int64) -> Bool {
            guard let job = jobs[token] else { return false }
            switch job.stage {
            case .running:
                jobs[token]?.stage = .recording
                jobs[token]?.deadline = nil
                return true
            case .recording, .abandoned:
                return false
            }
        }

        /// The jobs whose leases to renew: those neither lost nor given up.
        var heldLeases: [(JobID, Int64)] {
            jobs.values.filter { $0.cause != .leaseLost && $0.stage != .abandoned }.map {
                ($0.claimed.id, $0.claimed.token)
            }
        }

        /// Jobs given up whose procedures have not finished: each holds a slot.
        var stuckCount: Int { jobs.values.count { $0.stage == .abandoned } }

        mutating func leaseRenewed(_ token: Int64, until instant: ContinuousClock.Instant) {
            jobs[token]?.leaseEnds = instant
        }

        /// The running jobs whose leases ended by this worker's clock without a renewal. (A job whose outcome is
        /// being recorded is left alone: the recording is fenced, and its row may be locked by the recording
        /// itself.)
        func expiredLeases(at now: ContinuousClock.Instant) -> [Int64] {
            jobs.filter { $0.value.stage == .running && $0.value.cause != .leaseLost && $0.value.leaseEnds < now }.map(
                \.key)
        }

        /// Handles every deadline passed at `now`: a running job without a cause is cancelled for its timeout
        /// (and gets `grace` to stop); one already cancelled is given up.
        mutating func deadlinesPassed(at now: ContinuousClock.Instant, grace: Duration) -> [DeadlineAction] {
            var actions: [DeadlineAction] = []
            for (token, job) in jobs where job.stage == .running {
                guard let deadline = job.deadline, deadline <= now, let procedure = job.procedure else { continue }
                if let cause = job.cause {
                    jobs[token]?.stage = .abandoned
                    jobs[token]?.deadline = nil
                    actions.append(.giveUp(job.claimed, cause: cause, timeout: job.timeout))
                } else {
                    jobs[token]?.cause = .timedOut
                    jobs[token]?.deadline = now + grace
                    actions.append(.cancelForTimeout(job.claimed, procedure, timeout: job.timeout))
                }
            }
            return actions
        }

        /// The earliest deadline of a running job, if any.
        var nextDeadline: ContinuousClock.Instant? {
            jobs.values.compactMap { $0.stage == .running ? $0.deadline : nil }.min()
        }

        /// The job is gone: its outcome was recorded, or its given-up procedure finished.
        mutating func finished(_ token: Int64) -> Action {
            jobs[token] = nil
            return stopIfDone()
        }

        mutating func claimLoopEnded() -> Action {
            claimLoopRunning = false
            if phase == .running { phase = .draining }
            return stopIfDone()
        }

        private mutating func stopIfDone() -> Action {
            guard phase == .draining, jobs.isEmpty, !claimLoopRunning else { return .none }
            phase = .stopped
            return .finishStopping
        }
    }
#endif
