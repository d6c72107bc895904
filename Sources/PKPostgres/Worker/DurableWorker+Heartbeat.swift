#if Postgres
    import Dispatch
    import Foundation
    import PKCore

    extension DurableWorker {

        /// Starts the heartbeat: every third of the lease, renew the leases held, cancel the jobs whose
        /// cancellation was requested or whose lease is gone, and reap expired leases if elected.
        /// The heartbeat reschedules itself on the heartbeat lane's queue until the worker stops.
        func startHeartbeat() {
            let period = max(0.05, Self.seconds(leaseDuration) / 3)
            heartbeatLane.queue.asyncAfter(deadline: .now() + period) { [self] in
                guard !stopWaiters.withLock({ $0.stopped }) else { return }
                heartbeat()
                startHeartbeat()
            }
        }

        /// One heartbeat, on the heartbeat lane's queue.
        private func heartbeat() {
            let lease = Self.seconds(leaseDuration)
            let held = state.withLock { $0.heldLeases }
            let sent = ContinuousClock.now
            do {
                let answer = try heartbeatLane.onQueue { connection in
                    try queue.store.heartbeat(held, lease: lease, connection)
                }
                let renewedUntil = sent + leaseDuration
                state.withLock { machine in
                    for id in answer.keys { machine.leaseRenewed(id, until: renewedUntil) }
                }
                for (id, _) in held where answer[id] == nil { cancelLocally(id, cause: .leaseLost) }
                for (id, requested) in answer where requested { cancelLocally(id, cause: .cancelRequested) }
            } catch {
                log(.warning, "heartbeat failed: \(error)")
            }
            // A lease this worker could not renew in time is gone, whatever the database says later.
            for id in state.withLock({ $0.expiredLeases(at: .now) }) { cancelLocally(id, cause: .leaseLost) }
            do {
                if let reaped = try heartbeatLane.onQueue({ try queue.store.reapExpiredLeases($0) }), reaped > 0 {
                    counters.withLock { $0.reaped += reaped }
                    log(.info, "requeued or failed \(reaped) job(s) whose leases expired")
                }
            } catch {
                log(.warning, "reaping failed: \(error)")
            }
        }
    }
#endif
