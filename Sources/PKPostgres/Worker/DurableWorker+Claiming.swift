#if Postgres
    import Foundation
    import PKCore
    import PKObservers

    extension DurableWorker {

        /// The most job ids the worker remembers as unreadable (and so leaves unclaimed).
        static let unreadableMemory = 1_000

        /// The claim thread's loop: claim while there are free slots, then wait for a notification, a wake-up
        /// (a slot freed, shutdown) or the poll interval. Its connection is used by this thread only.
        ///
        /// Every claimed job starts at once: the worker claims no more than its free slots
        /// (``WorkerStateMachine/claimLimit(concurrency:)``); when a claim fills them all, the loop claims again as
        /// soon as an outcome frees one.
        func claimLoop() {
            var connection: PostgresConnection?
            var backoff = 0.05
            var unreadable: [JobID] = []
            let kinds = queue.registeredKinds
            let lease = Self.seconds(leaseDuration)
            let starving = Self.seconds(starvationLimit)
            let pollSeconds = Self.seconds(pollInterval)
            let schema = queue.store.schema
            while true {
                if let coordinator, coordinator.isShutdownRequested {
                    perform(
                        state.withLock { $0.shutdown(cancelRunning: false, now: .now, grace: leaseDuration) }.action)
                }
                // The jobs held by queue are counted only when a queue has a limit of this worker's.
                let (limit, held) = state.withLock { machine in
                    (machine.claimLimit(concurrency: concurrency), queueConcurrency.isEmpty ? [:] : machine.jobsByQueue)
                }
                // A queue at this worker's limit for it is left out of the claim; the others carry their room.
                let claimable = queues.filter { name in
                    queueConcurrency[name].map { held[name, default: 0] < $0 } ?? true
                }
                let caps = claimable.map { name in queueConcurrency[name].map { $0 - held[name, default: 0] } }
                if state.withLock({ $0.phase != .running }) { break }
                do {
                    if connection == nil || connection?.isOpen == false {
                        let fresh = try PostgresConnection(queue.connectionString)
                        try queue.migrator.ensure(fresh)
                        try fresh.listen(schema.jobsChannel)
                        try fresh.listen(schema.cancelChannel)
                        connection = fresh
                        if backoff > 0.05 { log(.info, "reconnected to the database") }
                    }
                    guard let connection else { continue }
                    if limit > 0, !claimable.isEmpty {
                        // Taken before the statement is sent: the database's lease starts later, so this estimate
                        // of its end is never later than the database's.
                        let sent = ContinuousClock.now
                        let claim = try queue.store.claim(
                            queues: claimable, queueCaps: caps, kinds: kinds, limit: limit, owner: name, lease: lease,
                            starving: starving,
                            skip: unreadable, connection)
                        claimRan(claim, sent: sent)
                        for job in claim.jobs { launch(job, leaseEnds: sent + leaseDuration) }
                        for (job, reason) in claim.unreadable {
                            giveBackUnread(job, reason: reason, leaseEnds: sent + leaseDuration)
                            unreadable.append(job.id)
                        }
                        if unreadable.count > Self.unreadableMemory {
                            unreadable.removeFirst(unreadable.count - Self.unreadableMemory)
                        }
                        backoff = 0.05
                        // Full: more may be waiting; claim again once a slot is free (an outcome wakes the loop).
                        if claim.jobs.count + claim.unreadable.count == limit,
                            state.withLock({ $0.claimLimit(concurrency: concurrency) }) > 0
                        {
                            continue
                        }
                    }
                    let wait = coordinator == nil ? pollSeconds : min(pollSeconds, 0.25)
                    let notifications = try connection.waitForNotifications(
                        timeout: wait, wakeDescriptor: wakePipe.readDescriptor)
                    wakePipe.drain()
                    for notification in notifications where notification.channel == schema.cancelChannel {
                        if let raw = Int64(notification.payload) {
                            cancelLocally(JobID(rawValue: raw), cause: .cancelRequested)
                        }
                    }
                    backoff = 0.05
                } catch {
                    if let postgres = error as? PostgresError, postgres.isTransient {
                        log(.warning, "claiming failed, retrying in \(backoff) s: \(postgres)")
                    } else {
                        log(.warning, "claiming failed: \(error)")
                    }
                    connection?.close()
                    connection = nil
                    // Wait, but wake at once for a shutdown.
                    var descriptor = pollfd(fd: wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&descriptor, 1, Int32(backoff * 1_000))
                    wakePipe.drain()
                    backoff = min(backoff * 2, 5)
                }
            }
            connection?.close()
            perform(state.withLock { $0.claimLoopEnded() })
        }

        /// Makes the job's procedure and adds it to the local queue, or records why it cannot run.
        private func launch(_ job: DurableStore.ClaimedJob, leaseEnds: ContinuousClock.Instant) {
            counters.withLock { $0.claimed += 1 }
            let journal = DurableJobJournal()
            let info = DurableJobInfo(
                id: job.id, kind: job.kind, attempt: job.attempt, maxAttempts: job.maxAttempts, graph: job.graph,
                workerName: name, periodStart: job.periodStart, journal: journal)
            let kind = queue.kind(named: job.kind)
            let timeout = job.timeout ?? kind?.timeout ?? DurableKind.clamped(.seconds(1_800))
            let run: any DurableRun
            do {
                guard let kind else { throw DurableError.unknownKind(job.kind) }
                if job.input == nil, let source = job.inputFrom { throw DurableError.inputSourceUnavailable(source) }
                run = try kind.makeRun(info, job.input)
            } catch {
                state.withLock {
                    $0.claimed(job, procedure: nil, timeout: timeout, leaseEnds: leaseEnds, now: .now)
                }
                enqueueOutcome { [self] in record(.failure([error]), for: job, info: info, run: nil) }
                return
            }
            let procedure = run.procedure
            let deadline = state.withLock { machine -> ContinuousClock.Instant? in
                machine.claimed(
                    job, procedure: procedure, journal: journal, timeout: timeout, leaseEnds: leaseEnds, now: .now)
                return machine.nextDeadline
            }
            if let deadline { deadlines.withLock { $0 }?.schedule(deadline) }
            procedure.addDidFinishBlockObserver { [self] procedure, errors in
                procedureFinished(job, info: info, run: run, cancelled: procedure.isCancelled, errors: errors)
            }
            if let coordinator {
                procedure.addObserver(
                    BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
            }
            procedureQueue.add(procedure: procedure)
        }

        /// A claimed job this build cannot read: given back without spending its attempt (on the outcome thread,
        /// retried while the database is unreachable, its lease renewed meanwhile).
        private func giveBackUnread(_ job: DurableStore.ClaimedJob, reason: String, leaseEnds: ContinuousClock.Instant)
        {
            counters.withLock { $0.unreadable += 1 }
            log(
                .warning,
                "\(DurableError.unreadableJob(job.id, reason: reason)); giving it back without spending an attempt, "
                    + "and leaving it to other workers")
            let info = DurableJobInfo(
                id: job.id, kind: job.kind, attempt: job.attempt, maxAttempts: job.maxAttempts, graph: job.graph,
                workerName: name, periodStart: job.periodStart)
            state.withLock {
                $0.claimed(job, procedure: nil, timeout: .seconds(1), leaseEnds: leaseEnds, now: .now)
            }
            enqueueOutcome { [self] in record(.release, for: job, info: info, run: nil) }
        }

        /// Cancels the procedures of job `id` for `cause`, unless the worker already cancelled them.
        func cancelLocally(_ id: JobID, cause: WorkerStateMachine.CancelCause) {
            let (procedures, deadline) = state.withLock { machine in
                (machine.cancel(id, cause: cause, now: .now, grace: leaseDuration), machine.nextDeadline)
            }
            guard !procedures.isEmpty else { return }
            if let deadline { deadlines.withLock { $0 }?.schedule(deadline) }
            for procedure in procedures { cancel(procedure, of: id, for: cause) }
        }

        /// Cancels the procedure of the run claimed with `token` for `cause`, unless the worker already did.
        func cancelLocally(token: Int64, cause: WorkerStateMachine.CancelCause) {
            let (procedure, id, deadline) = state.withLock { machine in
                (
                    machine.cancel(token: token, cause: cause, now: .now, grace: leaseDuration),
                    machine.jobs[token]?.claimed.id, machine.nextDeadline
                )
            }
            guard let procedure, let id else { return }
            if let deadline { deadlines.withLock { $0 }?.schedule(deadline) }
            cancel(procedure, of: id, for: cause)
        }

        private func cancel(_ procedure: Procedure, of id: JobID, for cause: WorkerStateMachine.CancelCause) {
            switch cause {
            case .leaseLost:
                log(.warning, "lost the lease on \(id); cancelling its procedure")
                procedure.cancel(with: DurableError.leaseLost(id))
            case .cancelRequested:
                procedure.cancel(with: DurableError.cancelledByRequest(id))
            case .shutdown:
                procedure.cancel(with: DurableError.workerShuttingDown)
            case .timedOut:
                // Timeouts are the deadline timer's (deadlinesPassed), which knows the job's timeout.
                procedure.cancel(with: DurableError.timedOut(id, after: .zero))
            }
        }
    }
#endif
