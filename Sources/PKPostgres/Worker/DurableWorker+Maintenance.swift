#if Postgres
    import Dispatch
    import Foundation
    import PKCore

    extension DurableWorker {

        /// How many expired leases the reaper handles in one transaction.
        static let reaperBatch = 200

        /// Starts the maintenance cycle: every third of the lease, if this worker is elected (it holds the
        /// reaper's advisory lock for the transaction), requeue expired leases in batches, then wake jobs left
        /// waiting for categories nobody holds. On a connection of its own, so the heartbeat never waits for it.
        func startMaintenance() {
            let period = max(0.05, Self.seconds(leaseDuration) / 3)
            maintenanceLane.queue.asyncAfter(deadline: .now() + period) { [weak self] in
                // Weak: a stopped worker is released at once, not at its next tick.
                guard let self, !stopWaiters.withLock({ $0.stopped }) else { return }
                maintain()
                startMaintenance()
            }
        }

        /// One maintenance cycle, on the maintenance lane's queue.
        private func maintain() {
            let starving = Self.seconds(starvationLimit)
            do {
                var total = 0
                // Batches until one comes back short (or another worker took the lock), so that after a long
                // outage the backlog of expired leases is worked through in small transactions.
                while !stopWaiters.withLock({ $0.stopped }) {
                    guard
                        let reaped = try maintenanceLane.onQueue({
                            try queue.store.reapExpiredLeases(batch: Self.reaperBatch, starving: starving, $0)
                        })
                    else { break }
                    total += reaped
                    if reaped < Self.reaperBatch { break }
                }
                if total > 0 {
                    counters.withLock { $0.reaped += total }
                    log(.info, "requeued or failed \(total) job(s) whose leases expired")
                }
                guard !stopWaiters.withLock({ $0.stopped }) else { return }
                if let woken = try maintenanceLane.onQueue({ try queue.store.wakeStrandedWaiters(batch: 100, $0) }),
                    woken > 0
                {
                    log(.warning, "woke \(woken) job(s) left waiting for categories nobody holds")
                }
                if !stopWaiters.withLock({ $0.stopped }) { try applyRetention() }
                if !stopWaiters.withLock({ $0.stopped }) { try forgetSilentWorkers() }
            } catch {
                log(.warning, "maintenance failed: \(error)")
            }
        }

        /// Deletes the rows of workers silent for an hour, when this worker is elected (in the transaction that holds
        /// the reaper's lock).
        private func forgetSilentWorkers() throws {
            let forgotten = try maintenanceLane.onQueue { connection in
                try connection.transaction { connection -> Int in
                    guard try queue.store.holdsReaperLock(connection) else { return 0 }
                    return try queue.store.forgetSilentWorkers(connection)
                }
            }
            if forgotten > 0 { log(.info, "forgot \(forgotten) worker(s) silent for an hour") }
        }

        /// How many finished jobs one maintenance cycle deletes at most: a backlog is worked through over several
        /// cycles, in transactions of ``retentionBatch``.
        static let retentionBatch = 1_000
        static let retentionPerCycle = 10_000

        /// Deletes finished jobs older than the retention allows, if this worker is elected and the retention's
        /// interval has passed since it last looked; on the maintenance lane.
        private func applyRetention() throws {
            let ages = retention.ages
            guard !ages.isEmpty else { return }
            let now = ContinuousClock.now
            let due = lastRetentionRun.withLock { last -> Bool in
                if let last, now - last < retention.interval { return false }
                last = now
                return true
            }
            guard due else { return }
            var total = 0
            states: for (state, age) in ages {
                let seconds = min(max(0, Self.seconds(age)), 9e10)
                var after: (finishedAt: String, id: String)?
                while total < Self.retentionPerCycle, !stopWaiters.withLock({ $0.stopped }) {
                    guard
                        let batch = try maintenanceLane.onQueue({
                            try queue.store.pruneElected(
                                state: state, olderThan: seconds, batch: Self.retentionBatch, after: after, $0)
                        })
                    else { break states }  // another worker is elected
                    total += batch.deleted
                    guard let next = batch.next else { break }
                    after = next
                }
            }
            if total > 0 {
                counters.withLock { $0.pruned += total }
                log(.info, "deleted \(total) finished job(s) past their retention")
            }
        }

        // MARK: - Periodic jobs

        /// Starts checking the periodic jobs for due periods, on the maintenance lane: twice per shortest period,
        /// and at least every second (or third of a lease, when shorter); nothing when there are none.
        func startPeriodicChecks() {
            guard let shortest = periodicJobs.map(\.schedule.shortestPeriod).min() else { return }
            let period = max(0.01, min(shortest / 2, 1, Self.seconds(leaseDuration) / 3))
            maintenanceLane.queue.asyncAfter(deadline: .now() + period) { [weak self] in
                // Weak: a stopped worker is released at once, not at its next tick.
                guard let self, !stopWaiters.withLock({ $0.stopped }) else { return }
                checkPeriodicJobs()
                startPeriodicChecks()
            }
        }

        /// One check of every periodic job, on the maintenance lane's queue.
        private func checkPeriodicJobs() {
            // A period is missed when its job was not enqueued within a lease of its time.
            let grace = Self.seconds(leaseDuration)
            for periodic in periodicJobs {
                // Stopped meanwhile: nothing more (a call would open the lane's connection again).
                guard !stopWaiters.withLock({ $0.stopped }) else { return }
                do {
                    guard
                        let check = try maintenanceLane.onQueue({
                            try queue.store.checkPeriodic(periodic, grace: grace, $0)
                        })
                    else { return }  // another worker is elected
                    if let job = check.job { announceInserted(job, of: periodic) }
                    if check.enqueued > 0 || check.skipped > 0 {
                        counters.withLock {
                            $0.periodicEnqueued += check.enqueued
                            $0.periodsSkipped += check.skipped
                        }
                    }
                    if check.skipped > 0 {
                        log(
                            .info,
                            "\(check.skipped) period(s) of the periodic job \(periodic.name) passed without a job")
                    }
                } catch {
                    log(.warning, "checking the periodic job \(periodic.name) failed: \(error)")
                }
            }
        }

        // MARK: - Deadlines

        /// The deadline timer fired (on its queue): cancel jobs that ran past their timeout, give up those that
        /// did not stop in time after a cancellation. Returns the next deadline.
        func deadlinesPassed() -> ContinuousClock.Instant? {
            let (actions, next) = state.withLock { machine in
                (machine.deadlinesPassed(at: .now, grace: leaseDuration), machine.nextDeadline)
            }
            for action in actions {
                switch action {
                case .cancelForTimeout(let job, let procedure, let timeout):
                    counters.withLock { $0.timedOut += 1 }
                    log(.warning, "\(job.id) ran longer than its timeout of \(Self.seconds(timeout)) s; cancelling it")
                    procedure.cancel(with: DurableError.timedOut(job.id, after: timeout))
                case .giveUp(let job, let cause, let timeout):
                    giveUp(job, cause: cause, timeout: timeout)
                }
            }
            return next
        }

        /// Arms the deadline timer for the earliest deadline, if any.
        func scheduleDeadlines() {
            guard let next = state.withLock({ $0.nextDeadline }) else { return }
            deadlines.withLock { $0 }?.schedule(next)
        }
    }
#endif
