#if Postgres
    import Foundation
    import PKCore

    extension DurableWorker {

        /// What to record for a finished procedure.
        enum Outcome {
            case success(String)
            case failure([any Error])
            case cancelled(reason: String)
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
            let (cause, draining) = state.withLock { ($0.cause(of: job.id), $0.phase != .running) }
            let outcome: Outcome
            switch cause {
            case .leaseLost:
                outcome = .abandon
            case .cancelRequested:
                outcome = .cancelled(reason: "cancelled by request")
            case .shutdown:
                outcome = .release
            case nil:
                if cancelled && (draining || errors.contains(where: Self.isShutdownError)) {
                    outcome = .release
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
            outcomeLane.queue.async { [self] in record(outcome, for: job, info: info, run: run) }
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

        /// Records `outcome` (on the outcome thread), retrying while the database is unreachable, then frees the
        /// job's slot.
        func record(_ outcome: Outcome, for job: DurableStore.ClaimedJob, info: DurableJobInfo, run: (any DurableRun)?)
        {
            var outcome = outcome
            let deadline = ContinuousClock.now + leaseDuration * 3
            var backoff = 0.05
            while true {
                do {
                    let next = try outcomeLane.onQueue { connection in
                        try apply(outcome, for: job, info: info, run: run, connection)
                    }
                    guard let next else { break }
                    outcome = next  // the completion hook threw: record the failure instead
                } catch {
                    let transient = (error as? PostgresError)?.isTransient ?? false
                    guard transient, ContinuousClock.now < deadline else {
                        log(.warning, "could not record the outcome of \(job.id): \(error); its lease will expire")
                        break
                    }
                    Thread.sleep(forTimeInterval: backoff)
                    backoff = min(backoff * 2, 2)
                }
            }
            let (action, held) = state.withLock { ($0.finished(job.id), $0.jobs.count) }
            perform(action)
            // PERF(W16): wake the claim loop only when it may claim: a run slot is free (no backlog), or the
            // prefetched jobs are down to one batch (a backlog). A wake per finished job cost a context switch each.
            if held <= concurrency { wakePipe.wake() }
        }

        /// Applies one outcome in one transaction. Returns a further outcome to apply when the completion hook
        /// failed (the completion was rolled back).
        private func apply(
            _ outcome: Outcome, for job: DurableStore.ClaimedJob, info: DurableJobInfo, run: (any DurableRun)?,
            _ connection: PostgresConnection
        ) throws -> Outcome? {
            let store = queue.store
            switch outcome {
            case .abandon:
                counters.withLock { $0.leasesLost += 1 }
                return nil
            case .success(let json):
                struct HookFailed: Error { let error: any Error }
                do {
                    let recorded = try connection.transaction { connection -> Bool in
                        guard try store.complete(job.id, token: job.token, output: json, connection) else {
                            return false
                        }
                        do { try run?.willComplete(info, connection) } catch { throw HookFailed(error: error) }
                        return true
                    }
                    tally(recorded, \.completed, else: \.leasesLost)
                    if !recorded { log(.warning, "\(job.id) finished after its lease was lost; outcome discarded") }
                    return nil
                } catch let failure as HookFailed {
                    return .failure([failure.error])
                }
            case .failure(let errors):
                let permanent = errors.contains { ($0 as? DurableError)?.isPermanent ?? false }
                let text = errors.map { "attempt \(job.attempt): \($0)" }.joined(separator: "; ")
                let state = try connection.transaction { connection in
                    try store.fail(
                        job.id, token: job.token, error: text, delay: job.retry.delay(afterAttempt: job.attempt),
                        permanent: permanent, connection)
                }
                tally(state != nil, \.failed, else: \.leasesLost)
                return nil
            case .cancelled(let reason):
                let recorded = try connection.transaction { connection in
                    try store.cancelRunning(job.id, token: job.token, reason: reason, connection)
                }
                tally(recorded, \.cancelled, else: \.leasesLost)
                return nil
            case .release:
                let recorded = try connection.transaction { connection in
                    try store.release(job.id, token: job.token, connection)
                }
                tally(recorded, \.released, else: \.leasesLost)
                return nil
            }
        }
    }
#endif
