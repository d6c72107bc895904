#if Postgres
    import Foundation
    import PKCore

    extension DurableWorker {

        /// What to record for a finished procedure.
        enum Outcome {
            case success(String)
            case failure([any Error])
            case cancelled(reason: String)
            /// Run again after a delay (seconds) without spending the attempt (``DurableJobControl/snooze(_:)``).
            case snooze(TimeInterval)
            /// Give the job back without spending the attempt.
            case release
            /// Record nothing: the lease is gone.
            case abandon
        }

        /// A job's procedure finished (on its event thread): decide the outcome, record it on the outcome thread.
        func procedureFinished(
            _ job: DurableStore.ClaimedJob, info: DurableJobInfo, run: any DurableRun, cancelled: Bool,
            errors: [any Error]
        ) {
            let (toRecord, cause, timeout, draining) = state.withLock { machine in
                let held = machine.jobs[job.token]
                return (machine.procedureFinished(job.token), held?.cause, held?.timeout, machine.phase != .running)
            }
            guard toRecord else {
                // Given up already (its outcome recorded first on the outcome thread, or nothing to record): the
                // slot is free now, after that record.
                enqueueOutcome { [self] in freeSlot(of: job) }
                return
            }
            let outcome: Outcome
            switch cause {
            case .leaseLost:
                outcome = .abandon
            case .cancelRequested:
                outcome = .cancelled(reason: "cancelled by request")
            case .shutdown:
                outcome = .release
            case .timedOut:
                outcome = .failure([DurableError.timedOut(job.id, after: timeout ?? .zero)])
            case nil:
                if cancelled && (draining || errors.contains(where: Self.isShutdownError)) {
                    outcome = .release
                } else if let control = errors.lazy.compactMap({ $0 as? DurableJobControl }).first {
                    switch control {
                    case .snooze: outcome = .snooze(control.snoozeSeconds ?? 0)
                    case .discard: outcome = .failure(errors)
                    case .cancel(let reason): outcome = .cancelled(reason: "cancelled by the job: \(reason)")
                    }
                } else if !errors.isEmpty {
                    outcome = .failure(errors)
                } else if cancelled {
                    outcome = .cancelled(reason: "cancelled on worker \(name)")
                } else {
                    switch run.encodedOutput() {
                    case .success(let json): outcome = .success(json)
                    case .failure(let error): outcome = .failure([error])
                    }
                }
            }
            enqueueOutcome { [self] in record(outcome, for: job, info: info, run: run) }
        }

        /// Gives up a job whose procedure did not stop by its deadline after being cancelled for `cause`: records
        /// what the cause calls for, now, so that the job can run elsewhere; the procedure keeps its slot until
        /// it finishes (``procedureFinished(_:info:run:cancelled:errors:)`` then frees it).
        func giveUp(_ job: DurableStore.ClaimedJob, cause: WorkerStateMachine.CancelCause, timeout: Duration) {
            let grace = Self.seconds(leaseDuration)
            log(
                .fatal,
                "the procedure of \(job.id) did not stop within \(grace) s of its cancellation (\(cause)): the job "
                    + "is given up, and its slot stays taken until the procedure finishes")
            let outcome: Outcome
            switch cause {
            case .timedOut:
                outcome = .failure([
                    DurableError.timedOut(job.id, after: timeout), ProcedureDidNotStop(gracePeriod: grace),
                ])
            case .cancelRequested:
                outcome = .cancelled(reason: "cancelled by request (its procedure did not stop; given up)")
            case .shutdown:
                outcome = .release
            case .leaseLost:
                return
            }
            let info = DurableJobInfo(
                id: job.id, kind: job.kind, attempt: job.attempt, maxAttempts: job.maxAttempts, graph: job.graph,
                workerName: name, periodStart: job.periodStart)
            outcomeLane.queue.async { [self] in record(outcome, for: job, info: info, run: nil, freesSlot: false) }
        }

        /// Counts an outcome under `recorded` when it was recorded, else under `otherwise`.
        private func tally(
            _ wasRecorded: Bool, _ recorded: WritableKeyPath<Statistics, Int>,
            else otherwise: WritableKeyPath<Statistics, Int>
        ) {
            counters.withLock { $0[keyPath: wasRecorded ? recorded : otherwise] += 1 }
        }

        private static func isShutdownError(_ error: any Error) -> Bool {
            if let error = error as? DurableError, error == .workerShuttingDown { return true }
            guard let error = error as? ProcedureKitError else { return false }
            return error.context == .shutdownRequested || error.context == .shutdownGracePeriodExpired
        }

        /// Records `outcome` (on the outcome thread), then frees the job's slot unless `freesSlot` is false.
        ///
        /// - A transient error (connection lost, serialization failure, deadlock), in the completion hook too,
        ///   retries the whole outcome, with backoff, for up to three leases.
        /// - An outcome the database refuses for good (an output `jsonb` rejects), or one still failing after
        ///   three leases, is recorded as a failed attempt carrying the reason instead; a failure refused in turn
        ///   is recorded with the reason alone; only then is the job left to its lease.
        func record(
            _ outcome: Outcome, for job: DurableStore.ClaimedJob, info: DurableJobInfo, run: (any DurableRun)?,
            freesSlot: Bool = true
        ) {
            var outcome = outcome
            let deadline = ContinuousClock.now + leaseDuration * 3
            var backoff = 0.05
            var refusals = 0
            while true {
                do {
                    let next = try outcomeLane.onQueue { connection in
                        try apply(outcome, for: job, info: info, run: run, connection)
                    }
                    guard let next else { break }
                    outcome = next  // the completion hook threw: record the failure instead
                } catch {
                    let transient = (error as? PostgresError)?.isTransient ?? false
                    if transient, ContinuousClock.now < deadline {
                        Thread.sleep(forTimeInterval: backoff)
                        backoff = min(backoff * 2, 2)
                        continue
                    }
                    guard let fallback = Self.fallback(for: outcome, of: job, after: error, refusals: refusals) else {
                        log(.fatal, "could not record the outcome of \(job.id): \(error); its lease will expire")
                        break
                    }
                    log(.warning, "the outcome of \(job.id) could not be recorded (\(error)); recording a failure")
                    refusals += 1
                    outcome = fallback
                }
            }
            if freesSlot { freeSlot(of: job) }
        }

        /// The job is gone from this worker: its slot is free, and the claim loop may fill it.
        /// Queues `work`, which ends by freeing a slot (``freeSlot(of:)``), on the outcome thread.
        func enqueueOutcome(_ work: @escaping @Sendable () -> Void) {
            pendingOutcomes.add(1, ordering: .relaxed)
            outcomeLane.queue.async(execute: work)
        }

        /// The job is gone from this worker: its slot is free, and the claim loop may fill it.
        private func freeSlot(of job: DurableStore.ClaimedJob) {
            let (action, held) = state.withLock { ($0.finished(job.token), $0.jobs.count) }
            perform(action)
            let pending = pendingOutcomes.subtract(1, ordering: .relaxed).newValue
            // PERF(W16): outcomes that finish together free their slots together: the claim loop is woken once the
            // outcome thread has none left to record, or half the slots are free, so that one claim fills several
            // slots instead of one claim a slot.
            if pending == 0 || held <= concurrency / 2 { wakePipe.wake() }
        }

        /// What to record instead of `outcome` after `error` refused it: a failed attempt naming the error, then
        /// one with the error's class alone (the first may have been refused for the user's text); then nothing.
        private static func fallback(
            for outcome: Outcome, of job: DurableStore.ClaimedJob, after error: any Error, refusals: Int
        ) -> Outcome? {
            switch (outcome, refusals) {
            case (.success, 0), (.cancelled, 0), (.snooze, 0):
                return .failure([DurableError.outcomeRejected(job.id, reason: "\(error)")])
            case (.failure, 0), (.failure, 1):
                let code = (error as? PostgresError).map { "\($0.kind) \($0.sqlState ?? "")" } ?? "\(type(of: error))"
                return .failure([DurableError.outcomeRejected(job.id, reason: "the database refused it (\(code))")])
            default:
                return nil
            }
        }

        /// Applies one outcome in one transaction. Returns a further outcome to apply when the completion hook
        /// failed for a reason of its own (the completion was rolled back); a transient database error in the hook
        /// is thrown, so that the whole completion is tried again.
        private func apply(
            _ outcome: Outcome, for job: DurableStore.ClaimedJob, info: DurableJobInfo, run: (any DurableRun)?,
            _ connection: PostgresConnection
        ) throws -> Outcome? {
            let store = queue.store
            let starving = Self.seconds(starvationLimit)
            if case .abandon = outcome {} else { try writeRemainingMetadata(of: job, info: info, connection) }
            switch outcome {
            case .abandon:
                counters.withLock { $0.leasesLost += 1 }
                return nil
            case .success(let json):
                struct HookFailed: Error { let error: any Error }
                do {
                    let completion = try connection.transaction { connection -> DurableStore.Completion in
                        let completion = try store.complete(
                            job.id, token: job.token, output: json, starving: starving, connection)
                        guard completion == .completed else { return completion }
                        do {
                            try run?.willComplete(info, connection)
                        } catch let error as PostgresError where error.isTransient || !connection.isOpen {
                            throw error
                        } catch {
                            throw HookFailed(error: error)
                        }
                        return .completed
                    }
                    switch completion {
                    case .completed:
                        tally(true, \.completed, else: \.leasesLost)
                    case .already:
                        tally(true, \.completed, else: \.leasesLost)
                        log(.info, "the completion of \(job.id) had been recorded (the reply to its commit was lost)")
                    case .lost:
                        tally(false, \.completed, else: \.leasesLost)
                        log(.warning, "\(job.id) finished after its lease was lost; outcome discarded")
                    }
                    if completion != .lost { announce(.completed, job) }
                    return nil
                } catch let failure as HookFailed {
                    return .failure([failure.error])
                }
            case .failure(let errors):
                let permanent = errors.contains { error in
                    if case .discard = error as? DurableJobControl { return true }
                    return (error as? DurableError)?.isPermanent ?? false
                }
                let text = errors.map { "attempt \(job.attempt): \($0)" }.joined(separator: "; ")
                // One statement (a function call): atomic without a transaction of its own.
                let state = try store.fail(
                    job.id, token: job.token, error: text, delay: job.retry.delay(afterAttempt: job.attempt),
                    permanent: permanent, starving: starving, connection)
                tally(state != nil, \.failed, else: \.leasesLost)
                announce(Self.event(failedAs: state, after: errors), job, error: text)
                return nil
            case .cancelled(let reason):
                let recorded = try store.cancelRunning(
                    job.id, token: job.token, reason: reason, starving: starving, connection)
                tally(recorded, \.cancelled, else: \.leasesLost)
                if recorded { announce(.cancelled, job, error: reason) }
                return nil
            case .release:
                let recorded = try store.release(job.id, token: job.token, starving: starving, connection)
                tally(recorded, \.released, else: \.leasesLost)
                return nil
            case .snooze(let delay):
                let state = try store.snooze(
                    job.id, token: job.token, delay: delay, most: DurableJobControl.maximumSnoozes, starving: starving,
                    connection)
                tally(state != nil, \.snoozed, else: \.leasesLost)
                announce(Self.event(snoozedAs: state), job)
                return nil
            }
        }
    }

    /// Why a given-up job's attempt failed besides its timeout.
    struct ProcedureDidNotStop: Error, CustomStringConvertible {
        let gracePeriod: TimeInterval
        var description: String {
            "its procedure did not stop within \(gracePeriod) s of being cancelled, so the job was given up"
        }
    }
#endif
