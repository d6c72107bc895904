#if Postgres
    import PKCore

    /// The worker's metrics: read by an exporter, counted at the claim and the heartbeat.
    extension DurableWorker {
        /// A snapshot of the worker's counters, claim times and gauges, for an exporter (``PrometheusExposition``).
        /// Cheap (two locks taken briefly, no database round trip): read it at each scrape.
        public var metrics: DurableWorkerMetrics {
            let statistics = self.statistics
            let running = runningJobs.count
            let counters = metricCounters.withLock { $0 }
            return DurableWorkerMetrics(
                worker: name, statistics: statistics, heartbeats: counters.heartbeats,
                leaseRenewals: counters.leaseRenewals, claimStatements: counters.claimStatements,
                claimDuration: counters.claimDuration, runningJobs: running, slots: concurrency)
        }

        /// A claim statement sent at `sent` returned `claim`: count it, and announce the jobs it started.
        func claimRan(_ claim: DurableStore.Claim, sent: ContinuousClock.Instant) {
            let seconds = Self.seconds(ContinuousClock.now - sent)
            metricCounters.withLock { counters in
                counters.claimStatements += 1
                counters.claimDuration.record(seconds)
            }
            announce(claim.jobs.map { (.started, $0, nil) })
        }

        /// A heartbeat returned `answers`: count it and the leases it renewed.
        func heartbeatRan(_ answers: [Int64: DurableStore.Renewal]) {
            guard !answers.isEmpty else { return }  // nothing held: no statement was sent
            let renewed = answers.values.count { if case .renewed = $0 { true } else { false } }
            metricCounters.withLock { counters in
                counters.heartbeats += 1
                counters.leaseRenewals += renewed
            }
        }
    }
#endif
