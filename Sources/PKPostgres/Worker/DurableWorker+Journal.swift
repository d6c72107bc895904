#if Postgres
    import Dispatch
    import Foundation
    import PKCore

    extension DurableWorker {

        /// Starts the progress flush: about once a second (more often for leases under 3 s), write the progress and
        /// metadata that running jobs changed since the last write, in one statement on the heartbeat's connection
        /// that never waits for a row lock. Nothing is written while nothing changes.
        func startJournalFlush() {
            let period = min(1, max(0.05, Self.seconds(leaseDuration) / 3))
            heartbeatLane.queue.asyncAfter(deadline: .now() + period) { [weak self] in
                // Weak: a stopped worker is released at once, not at its next tick.
                guard let self, !stopWaiters.withLock({ $0.stopped }) else { return }
                flushJournals()
                startJournalFlush()
            }
        }

        /// One progress flush, on the heartbeat lane's queue.
        private func flushJournals() {
            // Read outside the worker's lock: a procedure's progress has a lock of its own.
            let running = state.withLock { $0.journals }
            var entries: [DurableStore.JournalEntry] = []
            var journals: [JobID: DurableJobJournal] = [:]
            for (job, procedure, journal) in running {
                let progress = journal.takeProgress(procedure.procedureProgress)
                let metadata = journal.takeMetadata()
                guard progress != nil || metadata != nil else { continue }
                entries.append(.init(id: job.id, token: job.token, progress: progress, metadata: metadata))
                journals[job.id] = journal
            }
            guard !entries.isEmpty else { return }
            var written: Set<JobID> = []
            do {
                written = try heartbeatLane.onQueue { connection in
                    try queue.store.writeJournals(entries, skipLocked: true, connection)
                }
            } catch {
                log(.warning, "writing the progress of running jobs failed: \(error)")
            }
            // Not written (a lock, an error, a lease gone): kept for the next flush or the outcome.
            for entry in entries where !written.contains(entry.id) {
                if let metadata = entry.metadata { journals[entry.id]?.restore(metadata) }
                if entry.progress != nil { journals[entry.id]?.forgetWrittenProgress() }
            }
        }

        /// Writes the metadata `info`'s job recorded and the flush has not written, before its outcome (on the
        /// outcome thread); given back to the journal when the write fails, so that a retried outcome writes it.
        func writeRemainingMetadata(
            of job: DurableStore.ClaimedJob, info: DurableJobInfo, _ connection: PostgresConnection
        )
            throws
        {
            guard let journal = info.journal, let metadata = journal.takeMetadata() else { return }
            do {
                _ = try queue.store.writeJournals(
                    [.init(id: job.id, token: job.token, progress: nil, metadata: metadata)], skipLocked: false,
                    connection)
            } catch {
                journal.restore(metadata)
                throw error
            }
        }
    }
#endif
