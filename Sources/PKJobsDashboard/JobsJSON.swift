#if Postgres
    import Foundation
    import PKPostgres

    /// The JSON shapes `pk-jobs` prints and the dashboard's API serves: plain dictionaries and arrays, so
    /// that a job's stored input and output are embedded as the JSON they are.
    package enum JobsJSON {

        /// `{"queues":{"<queue>":{"<state>":count,…}},"paused":["<queue>",…]}`, with every state of every queue
        /// that holds a job or is paused (zero included); and `"oldestAvailableSeconds":{"<queue>":s}`,
        /// `"runningByWorker":{"<worker>":count}`, `"finishedLastMinute":{"<queue>":{"<state>":count}}`.
        package static func statistics(_ statistics: DurableQueueStatistics) -> [String: Any] {
            var queues: [String: Any] = [:]
            for name in Set(statistics.counts.keys).union(statistics.paused) {
                var states: [String: Int] = [:]
                for state in JobState.allCases { states[state.rawValue] = statistics.count(queue: name, state: state) }
                queues[name] = states
            }
            return [
                "queues": queues, "paused": statistics.paused,
                "oldestAvailableSeconds": statistics.oldestAvailableAge.mapValues { $0.timeInterval },
                "runningByWorker": statistics.runningByWorker,
                "finishedLastMinute": statistics.finishedLastMinute.mapValues { states in
                    Dictionary(uniqueKeysWithValues: states.map { ($0.key.rawValue, $0.value) })
                },
            ]
        }

        /// A job as `list` shows it: `{"id","kind","queue","state","attempt","maxAttempts","errors":[…],…}`.
        package static func job(_ job: DurableJobSnapshot, failedAttempts: [DurableAttempt]) -> [String: Any] {
            var object: [String: Any] = [
                "id": job.id.rawValue, "kind": job.kind, "queue": job.queue, "state": job.state.rawValue,
                "attempt": job.attempt, "maxAttempts": job.maxAttempts, "priority": Int(job.priority),
                "runAt": date(job.runAt), "createdAt": date(job.createdAt),
                "errors": errors(of: job, failedAttempts: failedAttempts),
                "pendingDependencies": job.pendingDependencies, "cancelRequested": job.isCancelRequested,
            ]
            object["finishedAt"] = job.finishedAt.map(date) ?? NSNull()
            object["graph"] = job.graph.map { $0.rawValue as Any } ?? NSNull()
            object["worker"] = job.leaseOwner ?? NSNull()
            object["metadata"] = job.metadata
            object["progress"] = job.progress ?? NSNull()
            object["progressMessage"] = job.progressMessage ?? NSNull()
            return object
        }

        /// A job as `show` shows it: the listing's fields, its input and output, and every attempt.
        package static func detail(_ snapshot: DurableJobSnapshot, attempts: [DurableAttempt]) -> [String: Any] {
            var object = job(snapshot, failedAttempts: attempts.filter { $0.error != nil })
            object["input"] = embedded(snapshot.inputJSON)
            object["output"] = embedded(snapshot.outputJSON)
            object["attempts"] = attempts.map { attempt -> [String: Any] in
                [
                    "attempt": attempt.number, "worker": attempt.worker, "startedAt": date(attempt.startedAt),
                    "finishedAt": attempt.finishedAt.map(date) ?? NSNull(),
                    "outcome": attempt.outcome?.rawValue ?? NSNull(), "error": attempt.error ?? NSNull(),
                    "seconds": attempt.finishedAt.map { $0.timeIntervalSince(attempt.startedAt) } ?? NSNull(),
                ]
            }
            return object
        }

        /// The job's errors in order, each `{"attempt","at","error"}`: an attempt's error with its number and end;
        /// an error of the job's own (a failed dependency, a cancellation before it ran) with the attempt count
        /// then and the job's end.
        package static func errors(of job: DurableJobSnapshot, failedAttempts: [DurableAttempt]) -> [[String: Any]] {
            var attempts = failedAttempts[...]
            return job.errors.map { error -> [String: Any] in
                if let attempt = attempts.first, attempt.error == error {
                    attempts = attempts.dropFirst()
                    return [
                        "attempt": attempt.number, "at": date(attempt.finishedAt ?? attempt.startedAt), "error": error,
                    ]
                }
                return ["attempt": job.attempt, "at": date(job.finishedAt ?? job.createdAt), "error": error]
            }
        }

        /// A job's dependency graph: `{"root","nodes":[{"id","kind","state","depth"}],"edges":[{"job","dependsOn"}],
        /// "truncated"}`.
        package static func graph(_ graph: DurableDependencyGraph) -> [String: Any] {
            [
                "root": graph.root.rawValue,
                "nodes": graph.nodes.map { node -> [String: Any] in
                    ["id": node.id.rawValue, "kind": node.kind, "state": node.state.rawValue, "depth": node.depth]
                },
                "edges": graph.edges.map { ["job": $0.job.rawValue, "dependsOn": $0.dependsOn.rawValue] },
                "truncated": graph.isTruncated,
            ]
        }

        /// The workers: `[{"name","queues","concurrency","leaseSeconds","startedAt","lastSeenAt",
        /// "secondsSinceLastSeen","running":[{"id","kind","queue","leaseExpiresAt"}]}]`.
        package static func workers(_ workers: [DurableWorkerStatus], now: Date = Date()) -> [[String: Any]] {
            workers.map { worker in
                [
                    "name": worker.name, "queues": worker.queues, "concurrency": worker.concurrency,
                    "leaseSeconds": worker.leaseSeconds, "startedAt": date(worker.startedAt),
                    "lastSeenAt": date(worker.lastSeenAt),
                    "secondsSinceLastSeen": max(0, now.timeIntervalSince(worker.lastSeenAt)),
                    "running": worker.running.map { job -> [String: Any] in
                        [
                            "id": job.id.rawValue, "kind": job.kind, "queue": job.queue,
                            "leaseExpiresAt": date(job.leaseExpiresAt),
                        ]
                    },
                ]
            }
        }

        /// The periodic jobs: `[{"name","kind","schedule","lastPeriod","nextPeriod"}]`.
        package static func periodic(_ jobs: [DurablePeriodicStatus]) -> [[String: Any]] {
            jobs.map { job in
                [
                    "name": job.name, "kind": job.kind ?? NSNull(), "schedule": job.schedule ?? NSNull(),
                    "lastPeriod": date(job.lastPeriod), "nextPeriod": job.nextPeriod.map(date) ?? NSNull(),
                ]
            }
        }

        /// Finished jobs per minute: `[{"minute","queue","completed","failed","cancelled"}]`.
        package static func throughput(_ samples: [DurableThroughput]) -> [[String: Any]] {
            samples.map { sample in
                [
                    "minute": date(sample.minute), "queue": sample.queue, "completed": sample.completed,
                    "failed": sample.failed, "cancelled": sample.cancelled,
                ]
            }
        }

        /// Stored JSON as a value to embed; `null` when there is none, the text itself when it does not parse.
        package static func embedded(_ text: String?) -> Any {
            guard let text else { return NSNull() }
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) ?? text
        }

        /// ISO 8601 with milliseconds, in UTC.
        package static func date(_ date: Date) -> String {
            date.formatted(
                .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        }

        /// `value` as JSON text, keys sorted.
        package static func text(_ value: Any) throws -> String {
            let data = try JSONSerialization.data(
                withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        }
    }
#endif
