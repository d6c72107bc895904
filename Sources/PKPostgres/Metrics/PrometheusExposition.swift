#if Postgres
    import Foundation

    /// Renders workers' metrics and a queue's job counts in the Prometheus text exposition format (version 0.0.4),
    /// for an HTTP route that a Prometheus server scrapes: serve ``text(workers:queueStatistics:)`` with
    /// ``contentType``.
    ///
    /// The metrics, each with `# HELP` and `# TYPE` lines:
    /// - `procedurekit_jobs{queue,state}` (gauge): the jobs of each named queue in each ``JobState``, from
    ///   ``DurableQueue/queueStatistics()``; `procedurekit_queue_paused{queue}` (gauge): 1 for a paused queue.
    /// - `procedurekit_worker_<counter>_total{worker}` (counters): `claimed`, `completed`, `failed`, `cancelled`,
    ///   `released`, `snoozed`, `leases_lost`, `reaped`, `pruned`, `periodic_enqueued`, `periods_skipped`,
    ///   `timed_out`, `unreadable` (``DurableWorker/Statistics``), `heartbeats`, `lease_renewals` and
    ///   `claim_statements`.
    /// - `procedurekit_worker_running_jobs`, `procedurekit_worker_slots` and `procedurekit_worker_stuck_jobs`
    ///   (gauges, by worker).
    /// - `procedurekit_worker_claim_duration_seconds{worker}` (histogram): `_bucket{le}`, `_sum` and `_count`.
    public enum PrometheusExposition {
        /// The content type of the text format, for the response's `Content-Type` header.
        public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

        /// The metrics of `workers` and, when given, the job counts of `queueStatistics`, in the text format: one
        /// family after another, each worker a sample labelled with its name. Pure: call it from any thread.
        public static func text(workers: [DurableWorkerMetrics], queueStatistics: DurableQueueStatistics? = nil)
            -> String
        {
            var output = Output()
            if let statistics = queueStatistics {
                let queues = Set(statistics.counts.keys).union(statistics.paused).sorted()
                output.family("procedurekit_jobs", .gauge, "Jobs in each named queue and state.")
                for queue in queues {
                    for state in JobState.allCases {
                        output.sample(
                            "procedurekit_jobs", [("queue", queue), ("state", state.rawValue)],
                            Double(statistics.count(queue: queue, state: state)))
                    }
                }
                output.family("procedurekit_queue_paused", .gauge, "1 when the named queue is paused, else 0.")
                for queue in queues {
                    output.sample(
                        "procedurekit_queue_paused", [("queue", queue)], statistics.paused.contains(queue) ? 1 : 0)
                }
            }
            guard !workers.isEmpty else { return output.text }
            for (name, help, value) in counters {
                let metric = "procedurekit_worker_\(name)_total"
                output.family(metric, .counter, help)
                for worker in workers { output.sample(metric, [("worker", worker.worker)], Double(value(worker))) }
            }
            for (name, help, value) in gauges {
                let metric = "procedurekit_worker_\(name)"
                output.family(metric, .gauge, help)
                for worker in workers { output.sample(metric, [("worker", worker.worker)], Double(value(worker))) }
            }
            let histogram = "procedurekit_worker_claim_duration_seconds"
            output.family(histogram, .histogram, "How long the worker's claim statements took.")
            for worker in workers {
                let claims = worker.claimDuration
                let labels = [("worker", worker.worker)]
                for (bound, count) in zip(claims.upperBounds, claims.cumulativeCounts) {
                    output.sample(histogram + "_bucket", labels + [("le", number(bound))], Double(count))
                }
                output.sample(histogram + "_bucket", labels + [("le", "+Inf")], Double(claims.count))
                output.sample(histogram + "_sum", labels, claims.sum)
                output.sample(histogram + "_count", labels, Double(claims.count))
            }
            return output.text
        }

        private static let counters: [(String, String, @Sendable (DurableWorkerMetrics) -> Int)] = [
            ("claimed", "Jobs the worker claimed.", { $0.statistics.claimed }),
            ("completed", "Jobs the worker recorded completed.", { $0.statistics.completed }),
            ("failed", "Attempts the worker recorded failed, retried or not.", { $0.statistics.failed }),
            ("cancelled", "Jobs the worker recorded cancelled.", { $0.statistics.cancelled }),
            ("released", "Jobs the worker gave back at shutdown.", { $0.statistics.released }),
            ("snoozed", "Jobs that asked the worker to run them again later.", { $0.statistics.snoozed }),
            ("leases_lost", "Outcomes the worker discarded because the lease was lost.", { $0.statistics.leasesLost }),
            ("reaped", "Expired leases the worker's reaper handled.", { $0.statistics.reaped }),
            ("pruned", "Finished jobs the worker deleted for their retention.", { $0.statistics.pruned }),
            ("periodic_enqueued", "Periodic jobs' periods the worker enqueued.", { $0.statistics.periodicEnqueued }),
            ("periods_skipped", "Periodic jobs' periods that passed without a job.", { $0.statistics.periodsSkipped }),
            ("timed_out", "Attempts cancelled for running past their timeout.", { $0.statistics.timedOut }),
            ("unreadable", "Jobs the worker could not read and gave back.", { $0.statistics.unreadable }),
            ("heartbeats", "Heartbeats that reached the database.", { $0.heartbeats }),
            ("lease_renewals", "Leases the worker's heartbeats renewed.", { $0.leaseRenewals }),
            ("claim_statements", "Claim statements the worker ran.", { $0.claimStatements }),
        ]

        private static let gauges: [(String, String, @Sendable (DurableWorkerMetrics) -> Int)] = [
            ("running_jobs", "Jobs the worker runs now.", { $0.runningJobs }),
            ("slots", "The most jobs the worker runs at once.", { $0.slots }),
            ("stuck_jobs", "Jobs given up whose procedures have not stopped yet.", { $0.statistics.stuck }),
        ]

        private enum Kind: String {
            case counter, gauge, histogram
        }

        /// The text being written.
        private struct Output {
            var text = ""

            mutating func family(_ name: String, _ kind: Kind, _ help: String) {
                text += "# HELP \(name) \(PrometheusExposition.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
            }

            mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
                let pairs = labels.map { "\($0.0)=\"\(PrometheusExposition.escapedLabelValue($0.1))\"" }
                text += name + (pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}")
                text += " " + PrometheusExposition.number(value) + "\n"
            }
        }

        /// A label value as the format writes it: `\`, `"` and line feeds escaped.
        static func escapedLabelValue(_ value: String) -> String {
            var escaped = ""
            for character in value.unicodeScalars {
                switch character {
                case "\\": escaped += "\\\\"
                case "\"": escaped += "\\\""
                case "\n": escaped += "\\n"
                default: escaped.unicodeScalars.append(character)
                }
            }
            return escaped
        }

        /// A `# HELP` text as the format writes it: `\` and line feeds escaped.
        static func escapedHelp(_ help: String) -> String {
            help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
        }

        /// A sample value or bound: integers without a fraction, `+Inf`, `-Inf` and `NaN` as the format spells them.
        static func number(_ value: Double) -> String {
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        }
    }
#endif
