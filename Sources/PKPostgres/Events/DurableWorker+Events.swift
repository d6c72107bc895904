#if Postgres
    import PKCore

    /// The events a worker publishes on its queue's hub: a claim's jobs started, each outcome recorded.
    extension DurableWorker {
        /// Publishes an event of `kind` for each job, once the change is committed (the caller's duty); a `nil`
        /// kind publishes nothing. Never blocks, takes no lock of the worker's.
        func announce(_ events: [(kind: DurableJobEvent.Kind?, job: DurableStore.ClaimedJob, error: String?)]) {
            let hub = queue.eventHub
            guard !events.isEmpty, hub.hasSubscribers else { return }
            hub.publish(
                events.compactMap { kind, job, error in
                    kind.map {
                        DurableJobEvent(
                            kind: $0, job: job.id, jobKind: job.kind, queue: job.queue, attempt: job.attempt,
                            error: error, worker: name)
                    }
                })
        }

        /// Publishes one event of `kind` for `job` (nothing for a `nil` kind): after its outcome committed.
        func announce(_ kind: DurableJobEvent.Kind?, _ job: DurableStore.ClaimedJob, error: String? = nil) {
            announce([(kind, job, error)])
        }

        /// The event of an attempt failed with `errors`, recorded with the job's new `state` (`nil`: the lease was
        /// lost, nothing was recorded). A failure that is a ``DurableJobControl`` is the job's discard.
        static func event(failedAs state: JobState?, after errors: [any Error]) -> DurableJobEvent.Kind? {
            switch state {
            case nil, .completed, .running: nil
            case .failed: errors.contains { $0 is DurableJobControl } ? .discarded : .failed
            case .cancelled: .cancelled
            case .available, .blocked: .retried
            }
        }

        /// The event of a snooze recorded with the job's new `state` (it fails after too many snoozes, and is
        /// cancelled when that was requested).
        static func event(snoozedAs state: JobState?) -> DurableJobEvent.Kind? {
            switch state {
            case nil, .completed, .running: nil
            case .failed: .failed
            case .cancelled: .cancelled
            case .available, .blocked: .snoozed
            }
        }

        /// The event of a periodic job's period enqueued by this worker (its transaction committed).
        func announceInserted(_ id: JobID, of periodic: DurablePeriodicJob) {
            let hub = queue.eventHub
            guard hub.hasSubscribers else { return }
            hub.publish([
                DurableJobEvent(
                    kind: .inserted, job: id, jobKind: periodic.kind, queue: periodic.options.queue, attempt: 0,
                    worker: name)
            ])
        }
    }
#endif
