#if Postgres
    import Foundation
    import PKCore
    import PKObservers

    extension DurableWorker {

        /// The claim thread's loop: claim while there are free slots, then wait for a notification, a wake-up
        /// (a slot freed, shutdown) or the poll interval. Its connection is used by this thread only.
        ///
        /// While a backlog lasts (the last claim got all it asked for), the worker prefetches in batches of
        /// `concurrency` (``WorkerStateMachine/claimLimit(concurrency:backlog:)``), so that one claim statement
        /// serves several jobs; a notification or a quiet poll interval ends the backlog.
        func claimLoop() {
            var connection: PostgresConnection?
            var backoff = 0.05
            var backlog = false
            let kinds = queue.registeredKinds
            let lease = Self.seconds(leaseDuration)
            let pollSeconds = Self.seconds(pollInterval)
            let schema = queue.store.schema
            while true {
                if let coordinator, coordinator.isShutdownRequested {
                    perform(state.withLock { $0.shutdown(cancelRunning: false) }.action)
                }
                let limit = state.withLock { $0.claimLimit(concurrency: concurrency, backlog: backlog) }
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
                    if limit > 0 {
                        let claimed = try queue.store.claim(
                            kinds: kinds, limit: limit, owner: name, lease: lease, connection)
                        for job in claimed { launch(job, lease: lease) }
                        backoff = 0.05
                        backlog = claimed.count == limit
                        if backlog { continue }
                    }
                    let wait = coordinator == nil ? pollSeconds : min(pollSeconds, 0.25)
                    let notifications = try connection.waitForNotifications(
                        timeout: wait, wakeDescriptor: wakePipe.readDescriptor)
                    let woken = wakePipe.drain()
                    if !notifications.isEmpty || !woken { backlog = false }
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
        private func launch(_ job: DurableStore.ClaimedJob, lease: TimeInterval) {
            counters.withLock { $0.claimed += 1 }
            let info = DurableJobInfo(
                id: job.id, kind: job.kind, attempt: job.attempt, maxAttempts: job.maxAttempts, graph: job.graph,
                workerName: name)
            let run: any DurableRun
            do {
                guard let kind = queue.kind(named: job.kind) else { throw DurableError.unknownKind(job.kind) }
                if job.input == nil, let source = job.inputFrom { throw DurableError.inputSourceUnavailable(source) }
                run = try kind.makeRun(info, job.input)
            } catch {
                let placeholder = Procedure()
                state.withLock {
                    $0.claimed(job, procedure: placeholder, leaseEnds: .now + .seconds(lease))
                }
                outcomeLane.queue.async { [self] in record(.failure([error]), for: job, info: info, run: nil) }
                return
            }
            let procedure = run.procedure
            state.withLock { $0.claimed(job, procedure: procedure, leaseEnds: .now + .seconds(lease)) }
            procedure.addDidFinishBlockObserver { [self] procedure, errors in
                procedureFinished(job, info: info, run: run, cancelled: procedure.isCancelled, errors: errors)
            }
            if let coordinator {
                procedure.addObserver(
                    BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
            }
            procedureQueue.add(procedure: procedure)
        }

        /// Cancels a job's procedure for `cause`, unless the worker already cancelled it.
        func cancelLocally(_ id: JobID, cause: WorkerStateMachine.CancelCause) {
            guard let procedure = state.withLock({ $0.cancel(id, cause: cause) }) else { return }
            switch cause {
            case .leaseLost:
                log(.warning, "lost the lease on \(id); cancelling its procedure")
                procedure.cancel(with: DurableError.leaseLost(id))
            case .cancelRequested:
                procedure.cancel(with: DurableError.cancelledByRequest(id))
            case .shutdown:
                procedure.cancel(with: DurableError.workerShuttingDown)
            }
        }
    }
#endif
