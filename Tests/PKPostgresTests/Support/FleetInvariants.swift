#if Postgres
    import Foundation

    /// What must hold after a ``FleetChaosRun``, however it was disturbed. ``violations(of:)`` lists every breach.
    ///
    /// - Every job ends `completed`, except the jobs planned to fail every attempt (doomed), which end `failed`
    ///   with all their attempts spent.
    /// - Its error history is complete and in order: one entry per attempt spent without completing, the n-th
    ///   naming attempt n, each either the failure its plan asked for or the expired lease of a worker the run
    ///   killed while it held that attempt; and every attempt a killed worker held when it died ends that way.
    /// - Every completion took effect exactly once, after its dependencies', written by a worker whose run of the
    ///   final attempt started.
    /// - An attempt is spent only by a run that started: every attempt up to the job's last has a `start` line
    ///   in some worker's output, or was held by a worker when it was killed (killed between claim and start).
    /// - No worker that stayed alive lost a lease: every worker not killed stopped cleanly on SIGTERM with
    ///   `leasesLost=0`, and no error history names the expired lease of a worker that was not killed, or of a
    ///   killed worker for an attempt it no longer held when it died.
    enum FleetInvariants {
        /// A `start <job id> <attempt> <worker>` line.
        struct Start: Hashable {
            let job: Int64
            let attempt: Int
            let worker: String
        }

        /// The `start` lines in a worker's output.
        static func starts(in output: String) -> [Start] {
            output.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count == 4, fields[0] == "start", let job = Int64(fields[1]),
                    let attempt = Int(fields[2])
                else { return nil }
                return Start(job: job, attempt: attempt, worker: String(fields[3]))
            }
        }

        /// The `key=value` fields of a worker's exit line (`worker <name> stopped=… leasesLost=…`).
        static func exitLine(of name: String, in output: String) -> [String: String]? {
            guard
                let line = output.split(separator: "\n").last(where: {
                    $0.hasPrefix("worker \(name) stopped=")
                })
            else { return nil }
            var fields: [String: String] = [:]
            for field in line.split(separator: " ") {
                let parts = field.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
            }
            return fields
        }

        /// What an entry of a job's error history says about attempt `attempt`.
        enum Entry: Equatable {
            /// The demo job's planned failure of that attempt.
            case planned
            /// The lease of `worker` expired during that attempt.
            case leaseExpired(worker: String)
            /// Anything else, or an entry naming another attempt.
            case unexpected
        }

        static func entry(_ text: String, attempt: Int) -> Entry {
            if text.hasPrefix("attempt \(attempt): "), text.hasSuffix(" failed attempt \(attempt) as planned") {
                return .planned
            }
            let prefix = "the lease of "
            let suffix = " expired during attempt \(attempt)"
            if text.hasPrefix(prefix), text.hasSuffix(suffix) {
                return .leaseExpired(worker: String(text.dropFirst(prefix.count).dropLast(suffix.count)))
            }
            return .unexpected
        }

        /// Every breach of the invariants in `record`, each with its evidence.
        static func violations(of record: FleetRunRecord) -> [String] {
            var violations: [String] = []
            let killed = Set(record.workers.filter(\.killed).map(\.name))
            let starts = record.workers.flatMap { Self.starts(in: $0.child.output) }
            let started = Set(starts.map { StartedAttempt(job: $0.job, attempt: $0.attempt) })
            let startedBy = Set(starts)
            let jobs = Dictionary(uniqueKeysWithValues: record.jobs.map { ($0.id, $0) })
            /// Whether the kill of `worker` cut `attempt` short: it held it when it died (or what it held is
            /// unknown).
            func cutByKill(_ job: Int64, _ attempt: Int, _ worker: String) -> Bool {
                record.heldByKilled.contains(FleetRunRecord.Held(job: job, attempt: attempt, worker: worker))
                    || record.unread.contains(worker)
            }

            // Every job's end, history, and spent attempts.
            for job in record.jobs {
                let doomed = job.failing >= job.maxAttempts
                let describe =
                    "job \(job.id) (\(job.state), attempt \(job.attempt) of \(job.maxAttempts), "
                    + "\(job.failing) planned failures, errors \(job.errors))"
                if doomed {
                    if job.state != "failed" || job.attempt != job.maxAttempts || job.errors.count != job.attempt {
                        violations.append("a job planned to fail every attempt did not: \(describe)")
                    }
                } else if job.state != "completed" || job.errors.count != job.attempt - 1 {
                    violations.append("a job not planned to fail did not complete after its errors: \(describe)")
                }
                for (index, text) in job.errors.enumerated() {
                    let attempt = index + 1
                    switch Self.entry(text, attempt: attempt) {
                    case .planned where attempt <= job.failing:
                        break
                    case .leaseExpired(let worker) where cutByKill(job.id, attempt, worker):
                        break
                    case .leaseExpired(let worker) where killed.contains(worker):
                        violations.append(
                            "the lease of \(worker) expired during attempt \(attempt), which it did not hold when it "
                                + "was killed (lost before): \(describe)")
                    case .leaseExpired(let worker):
                        violations.append(
                            "the lease of \(worker), which was not killed, expired during attempt \(attempt): \(describe)"
                        )
                    default:
                        violations.append("entry \(attempt) of the error history is not expected: \(describe)")
                    }
                }
                for attempt in 0..<job.attempt
                where !started.contains(StartedAttempt(job: job.id, attempt: attempt + 1)) {
                    // Not started: only the kill of the worker that had claimed it may have cut it short.
                    let recorded =
                        job.errors.indices.contains(attempt)
                        ? Self.entry(job.errors[attempt], attempt: attempt + 1) : nil
                    if case .leaseExpired(let worker) = recorded, cutByKill(job.id, attempt + 1, worker) { continue }
                    violations.append("attempt \(attempt + 1) was spent without a run that started: \(describe)")
                }
            }
            // What a killed worker held ends with its expired lease: never completed by it, never lost.
            for held in record.heldByKilled {
                guard let job = jobs[held.job] else { continue }
                let expected = "the lease of \(held.worker) expired during attempt \(held.attempt)"
                if !job.errors.indices.contains(held.attempt - 1) || job.errors[held.attempt - 1] != expected {
                    violations.append(
                        "\(held.worker) held attempt \(held.attempt) of job \(held.job) when it was killed, but the "
                            + "history does not say its lease expired: \(job.errors) (\(job.state))")
                }
            }
            for start in starts {
                guard let job = jobs[start.job] else {
                    violations.append("\(start.worker) started job \(start.job), which does not exist")
                    continue
                }
                if start.attempt > job.attempt {
                    violations.append(
                        "\(start.worker) started attempt \(start.attempt) of job \(start.job), past its last")
                }
            }

            // Effects: exactly once, by the run of the final attempt.
            let completed = record.jobs.filter { $0.state == "completed" }
            var effectsByJob: [Int64: [String]] = [:]
            for effect in record.effects { effectsByJob[effect.job, default: []].append(effect.worker) }
            for job in completed {
                let writers = effectsByJob[job.id] ?? []
                guard writers.count == 1, let writer = writers.first else {
                    violations.append("job \(job.id) has \(writers.count) effect rows (\(writers))")
                    continue
                }
                if !startedBy.contains(Start(job: job.id, attempt: job.attempt, worker: writer)) {
                    violations.append(
                        "job \(job.id)'s effect was written by \(writer), which did not start its attempt \(job.attempt)"
                    )
                }
            }
            for (job, writers) in effectsByJob where jobs[job]?.state != "completed" {
                violations.append("job \(job), not completed, has effect rows by \(writers)")
            }
            if let report = record.report {
                let doomed = record.jobs.count { $0.failing >= $0.maxAttempts }
                if report.total != record.level.jobs || report.states["completed"] != report.total - doomed
                    || (report.states["failed"] ?? 0) != doomed
                {
                    violations.append("the report's states are not as planned (\(doomed) doomed): \(report.states)")
                }
                if report.effects != report.states["completed"] || report.duplicateEffects != 0
                    || report.orderViolations != 0
                {
                    violations.append(
                        "the report counts \(report.effects) effects, \(report.duplicateEffects) duplicate, "
                            + "\(report.orderViolations) out of order, for \(report.states["completed"] ?? 0) completed"
                    )
                }
            } else {
                violations.append("no report")
            }

            // Workers that stayed alive: a clean stop, no lease lost.
            for worker in record.workers where !worker.killed {
                let fields = exitLine(of: worker.name, in: worker.child.output)
                if worker.termination != .exited(0) || fields?["stopped"] != "true" {
                    violations.append(
                        "\(worker.name) did not stop cleanly (\(worker.termination.map(\.description) ?? "running"), "
                            + "exit line \(fields ?? [:]))")
                }
                if let lost = fields?["leasesLost"], lost != "0" {
                    let evidence = worker.child.output.split(separator: "\n").filter {
                        $0.contains("lease") || $0.contains("heartbeat") || $0.contains("reconnect")
                    }
                    violations.append(
                        "\(worker.name), never killed, lost \(lost) lease(s); its log:\n    "
                            + evidence.prefix(20).joined(separator: "\n    "))
                }
            }
            if record.restarts != 1 { violations.append("the server was restarted \(record.restarts) times, not once") }
            if record.kills == 0 { violations.append("no worker was killed") }
            if record.terminatedBackends == 0 { violations.append("no connection was terminated") }
            return violations
        }

        /// How much the run exercised: start lines, planned failures, attempts ended by a killed worker's lease
        /// (and how many of those had not started).
        static func tally(of record: FleetRunRecord) -> String {
            let starts = Set(
                record.workers.flatMap { Self.starts(in: $0.child.output) }.map {
                    StartedAttempt(job: $0.job, attempt: $0.attempt)
                })
            var planned = 0
            var expired = 0
            var unstarted = 0
            for job in record.jobs {
                for (index, text) in job.errors.enumerated() {
                    switch entry(text, attempt: index + 1) {
                    case .planned: planned += 1
                    case .leaseExpired:
                        expired += 1
                        if !starts.contains(StartedAttempt(job: job.id, attempt: index + 1)) { unstarted += 1 }
                    case .unexpected: break
                    }
                }
            }
            return "\(starts.count) attempts started, \(planned) failed as planned, \(expired) ended by an expired "
                + "lease (\(unstarted) of them before they started)"
        }

        private struct StartedAttempt: Hashable {
            let job: Int64
            let attempt: Int
        }
    }
#endif
