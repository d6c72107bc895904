#if Postgres
    import Foundation
    import PKJobsDashboard
    import PKPostgres

    /// Carries out one `pk-jobs` command against the database and returns what to print: a JSON value, and whether
    /// every part of the request was carried out (a job that could not be retried, cancelled or deleted makes
    /// the exit status 1, with the reason on standard error).
    struct JobsTool {
        struct Outcome {
            var json: Any
            var problems: [String] = []
        }

        let commandLine: JobsCommandLine
        let queue: DurableQueue

        init(_ commandLine: JobsCommandLine) throws {
            self.commandLine = commandLine
            queue = try DurableQueue(
                connectionString: commandLine.database, schema: commandLine.schema,
                migration: commandLine.command == .migrate ? .automatic : .manual)
        }

        func run() async throws -> Outcome {
            switch commandLine.command {
            case .migrate:
                try await queue.migrate()
                return Outcome(json: ["migrated": true, "schema": queue.schema, "version": DurableQueue.schemaVersion])
            case .stats:
                return Outcome(json: JobsJSON.statistics(try await queue.queueStatistics()))
            case .list(let states, let kinds, let queues, let limit):
                let filter = DurableJobFilter(
                    states: Set(states.compactMap(JobState.init(rawValue:))), kinds: kinds, queues: queues, limit: limit
                )
                let jobs = try await queue.jobs(filter)
                let attempts = try await queue.failedAttempts(of: jobs.map(\.id))
                return Outcome(json: jobs.map { JobsJSON.job($0, failedAttempts: attempts[$0.id] ?? []) })
            case .show(let raw):
                let id = JobID(rawValue: raw)
                let job = try await queue.job(id)
                let attempts = try await queue.attempts(of: id)
                return Outcome(json: JobsJSON.detail(job, attempts: attempts))
            case .retry(let raw):
                let requested = raw.map(JobID.init(rawValue:))
                let retried = Set(try await queue.retry(requested))
                var problems: [String] = []
                for id in requested where !retried.contains(id) {
                    problems.append(try await reason(id, notDoneBecause: "it is not failed or cancelled"))
                }
                return Outcome(json: ["retried": retried.map(\.rawValue).sorted()], problems: problems)
            case .retryMatching(let states, let kinds, let queues):
                let filter = DurableJobFilter(
                    states: Set(states.compactMap(JobState.init(rawValue:))), kinds: kinds, queues: queues)
                return Outcome(json: ["retried": try await queue.retry(matching: filter)])
            case .cancel(let raw):
                var states: [String: String] = [:]
                var problems: [String] = []
                for id in raw.map(JobID.init(rawValue:)) {
                    do {
                        states[String(id.rawValue)] = try await queue.cancel(id).rawValue
                    } catch DurableError.jobNotFound {
                        problems.append("job \(id.rawValue) was not found")
                    }
                }
                return Outcome(json: ["states": states], problems: problems)
            case .delete(let raw):
                let requested = raw.map(JobID.init(rawValue:))
                let deleted = Set(try await queue.delete(requested))
                var problems: [String] = []
                for id in requested where !deleted.contains(id) {
                    problems.append(
                        try await reason(id, notDoneBecause: "it is running, or an unfinished job depends on it"))
                }
                return Outcome(json: ["deleted": deleted.map(\.rawValue).sorted()], problems: problems)
            case .prune(let state, let seconds):
                guard let state = JobState(rawValue: state) else { return Outcome(json: ["pruned": 0]) }
                let pruned = try await queue.prune(state: state, finishedBefore: .milliseconds(Int64(seconds * 1_000)))
                return Outcome(json: ["pruned": pruned])
            case .pause(let name):
                try await queue.pause(queue: name)
                return Outcome(json: ["paused": name])
            case .resume(let name):
                try await queue.resume(queue: name)
                return Outcome(json: ["resumed": name])
            case .serve:
                // main.swift runs the dashboard (Serve) before any command reaches here.
                return Outcome(json: NSNull(), problems: ["serve runs the dashboard; it is not a one-shot command"])
            }
        }

        /// Why a job was not retried or deleted: it does not exist, or `reason`.
        private func reason(_ id: JobID, notDoneBecause reason: String) async throws -> String {
            do {
                let job = try await queue.job(id)
                return "job \(id.rawValue) (\(job.state.rawValue)) was left alone: \(reason)"
            } catch DurableError.jobNotFound {
                return "job \(id.rawValue) was not found"
            }
        }
    }
#endif
