#if Postgres
    import Dispatch
    import Foundation
    import PKCore

    extension DurableWorker {

        /// Starts the heartbeat: every third of the lease, renew the leases held, cancel the jobs whose
        /// cancellation was requested or whose lease is gone. The heartbeat reschedules itself on the heartbeat
        /// lane's queue until the worker stops; it does nothing else there, so nothing delays it.
        func startHeartbeat() {
            let period = max(0.05, Self.seconds(leaseDuration) / 3)
            heartbeatLane.queue.asyncAfter(deadline: .now() + period) { [weak self] in
                // Weak: a stopped worker is released at once, not at its next tick.
                guard let self, !stopWaiters.withLock({ $0.stopped }) else { return }
                heartbeat()
                startHeartbeat()
            }
        }

        /// Writes the worker's row (``DurableQueue/workers()``), on the heartbeat lane's queue: at the start and with
        /// every heartbeat. A failure is logged, and left to the next heartbeat.
        func announce() {
            do {
                try heartbeatLane.onQueue { connection in
                    try queue.store.workerSeen(
                        name, queues: queues, concurrency: concurrency, lease: Self.seconds(leaseDuration), connection)
                }
            } catch {
                log(.info, "could not write the worker's row: \(error)")
            }
        }

        /// One heartbeat, on the heartbeat lane's queue.
        private func heartbeat() {
            let lease = Self.seconds(leaseDuration)
            let held = state.withLock { $0.heldLeases }
            // Taken before the statement is sent: the database extends the lease from a later moment.
            let sent = ContinuousClock.now
            do {
                let answers = try heartbeatLane.onQueue { connection in
                    try queue.store.heartbeat(held, lease: lease, connection)
                }
                heartbeatRan(answers)
                let renewedUntil = sent + leaseDuration
                state.withLock { machine in
                    for (token, answer) in answers {
                        if case .renewed = answer { machine.leaseRenewed(token, until: renewedUntil) }
                    }
                }
                for (token, answer) in answers {
                    switch answer {
                    case .lost:
                        cancelLocally(token: token, cause: .leaseLost)
                    case .renewed(cancelRequested: true), .locked(cancelRequested: true):
                        cancelLocally(token: token, cause: .cancelRequested)
                    case .renewed(cancelRequested: false), .locked(cancelRequested: false):
                        break
                    }
                }
            } catch {
                log(.warning, "heartbeat failed: \(error)")
            }
            announce()
            // A lease this worker could not renew in time is gone, whatever the database says later.
            for token in state.withLock({ $0.expiredLeases(at: .now) }) {
                cancelLocally(token: token, cause: .leaseLost)
            }
        }
    }
#endif
