#if Postgres
    import PKCore

    /// The life of a ``DurableWorker`` and of the jobs it holds, as a value: no locks, no threads, no clocks.
    ///
    /// ```
    /// idle ─start─▶ running ─shutdown─▶ draining ─(claim loop ended, no job left)─▶ stopped
    /// ```
    /// A job enters at its claim and leaves when its outcome is recorded; why it was cancelled, if it was, is kept
    /// with it, because that decides the outcome (lease lost: record nothing; cancel requested: cancelled;
    /// shutdown: released without spending the attempt).
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
        }

        struct Job {
            let claimed: DurableStore.ClaimedJob
            let procedure: Procedure
            var cause: CancelCause?
            /// This worker's estimate of when the lease ends, by its own monotonic clock.
            var leaseEnds: ContinuousClock.Instant
        }

        private(set) var phase: Phase = .idle
        private(set) var jobs: [JobID: Job] = [:]
        private(set) var claimLoopRunning = false

        /// What the owner does after an event.
        enum Action {
            case none
            /// Stop the heartbeat, close the connections, resume the waiters.
            case finishStopping
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

        /// Begins the shutdown; returns the procedures to cancel now when `cancelRunning`.
        mutating func shutdown(cancelRunning: Bool) -> (procedures: [Procedure], action: Action) {
            switch phase {
            case .idle:
                phase = .stopped
                return ([], .finishStopping)
            case .running, .draining:
                phase = .draining
                guard cancelRunning else { return ([], stopIfDone()) }
                var procedures: [Procedure] = []
                for (id, job) in jobs where job.cause == nil {
                    jobs[id]?.cause = .shutdown
                    procedures.append(job.procedure)
                }
                return (procedures, stopIfDone())
            case .stopped:
                return ([], .none)
            }
        }

        /// How many more jobs the claim loop may take; 0 once shutting down.
        func freeSlots(concurrency: Int) -> Int {
            phase == .running ? max(0, concurrency - jobs.count) : 0
        }

        /// How many jobs the claim loop asks for now; 0 once shutting down. Without a backlog, as many as there are
        /// free slots. In a backlog (the last claim got all it asked for) the worker prefetches: once no more than
        /// `concurrency` jobs are held it asks for enough to hold twice that, so that one claim statement serves
        /// `concurrency` jobs; the extra jobs wait on the local queue, leased and heartbeated.
        func claimLimit(concurrency: Int, backlog: Bool) -> Int {
            guard phase == .running else { return 0 }
            guard backlog else { return max(0, concurrency - jobs.count) }
            return jobs.count <= concurrency ? 2 * concurrency - jobs.count : 0
        }

        mutating func claimed(_ job: DurableStore.ClaimedJob, procedure: Procedure, leaseEnds: ContinuousClock.Instant)
        {
            jobs[job.id] = Job(claimed: job, procedure: procedure, cause: nil, leaseEnds: leaseEnds)
        }

        /// Marks a job cancelled for `cause`; returns its procedure when it was not already cancelled by the worker.
        mutating func cancel(_ id: JobID, cause: CancelCause) -> Procedure? {
            guard let job = jobs[id], job.cause == nil else { return nil }
            jobs[id]?.cause = cause
            return job.procedure
        }

        func cause(of id: JobID) -> CancelCause? { jobs[id]?.cause }

        /// The jobs whose leases to renew: those not given up.
        var heldLeases: [(JobID, Int64)] {
            jobs.values.filter { $0.cause != .leaseLost }.map { ($0.claimed.id, $0.claimed.token) }
        }

        mutating func leaseRenewed(_ id: JobID, until instant: ContinuousClock.Instant) {
            jobs[id]?.leaseEnds = instant
        }

        /// The jobs whose leases ended by this worker's clock without a renewal.
        func expiredLeases(at now: ContinuousClock.Instant) -> [JobID] {
            jobs.values.filter { $0.cause != .leaseLost && $0.leaseEnds < now }.map(\.claimed.id)
        }

        mutating func finished(_ id: JobID) -> Action {
            jobs[id] = nil
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
