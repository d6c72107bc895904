#if Postgres
    import Dispatch
    import Foundation
    import PKCore
    import PKHTTPServer
    import PKPostgres

    /// The fleet dashboard behind `pk-jobs serve`: the page, its script and style sheet, and the JSON API they use,
    /// whose shapes are `pk-jobs … --json`'s (``JobsJSON``).
    ///
    /// | Request | Answer |
    /// | --- | --- |
    /// | `GET /` | the page (`/assets/app.js`, `/assets/app.css`) |
    /// | `GET /api/stats` | what `pk-jobs stats --json` prints |
    /// | `GET /api/overview` | `{"stats","workers","periodic","throughput"}`: the overview's data in one answer |
    /// | `GET /api/jobs?state=&kind=&queue=&after=&limit=&createdAfter=&createdBefore=` | what `pk-jobs list --json` prints |
    /// | `GET /api/jobs/<id>` | what `pk-jobs show <id> --json` prints |
    /// | `GET /api/jobs/<id>/graph` | the job's dependency graph |
    /// | `GET /api/workers`, `/api/periodic`, `/api/throughput?minutes=` | workers, periodic jobs, finished per minute |
    /// | `POST /api/jobs/<id>/retry`, `…/cancel`, `…/delete` | as `pk-jobs retry`, `cancel`, `delete` |
    /// | `POST /api/jobs/retry?…`, `/api/jobs/cancel?…`, `/api/jobs/delete?…` | the same for every job a filter matches |
    /// | `POST /api/queues/<name>/pause`, `…/resume` | as `pk-jobs pause`, `resume` |
    ///
    /// Every answer carries a Content-Security-Policy that allows the page's own script and style sheet only, and
    /// `X-Content-Type-Options: nosniff`. In read-only mode, every `POST` gets 403 and the page shows no action.
    ///
    /// Thread-safe: immutable; each request blocks its own thread (the server's) on the queue's database work.
    package final class Dashboard: Sendable {
        package let queue: DurableQueue
        package let access: DashboardAccess
        package let readOnly: Bool

        /// A dashboard of `queue`'s schema.
        package init(queue: DurableQueue, access: DashboardAccess, readOnly: Bool) {
            self.queue = queue
            self.access = access
            self.readOnly = readOnly
        }

        /// Headers on every answer.
        package static let securityHeaders: [(String, String)] = [
            (
                "Content-Security-Policy",
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                    + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
            ),
            ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-store"),
        ]

        /// The answer to `request`.
        package func respond(to request: HTTPRequest) -> HTTPResponse {
            var response: HTTPResponse
            switch access.check(request) {
            case .answered(let answer): response = answer
            case .allowed: response = route(request)
            }
            for (name, value) in Self.securityHeaders where !response.headers.contains(name) {
                response.headers[name] = value
            }
            return response
        }

        // MARK: - Routing

        private func route(_ request: HTTPRequest) -> HTTPResponse {
            let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            let isGet = request.method == "GET" || request.method == "HEAD"
            do {
                if isGet {
                    return try read(parts, request)
                }
                guard request.method == "POST" else {
                    return DashboardAccess.error(.methodNotAllowed, "only GET and POST are answered")
                }
                guard !readOnly else { return DashboardAccess.error(.forbidden, "the dashboard is read-only") }
                switch parts.count {
                case 4 where parts[0] == "api" && parts[1] == "jobs":
                    return try json(act(parts[3], on: [try Self.jobID(parts[2])]))
                case 3 where parts[0] == "api" && parts[1] == "jobs":
                    return try json(actOnMatching(parts[2], try Self.filter(request)))
                case 4 where parts[0] == "api" && parts[1] == "queues" && parts[3] == "pause":
                    let name = parts[2]
                    try blocking { [queue] in try await queue.pause(queue: name) }
                    return try json(["paused": name])
                case 4 where parts[0] == "api" && parts[1] == "queues" && parts[3] == "resume":
                    let name = parts[2]
                    try blocking { [queue] in try await queue.resume(queue: name) }
                    return try json(["resumed": name])
                default:
                    return Self.notFound(request)
                }
            } catch let error as DurableError {
                switch error {
                case .jobNotFound: return DashboardAccess.error(.notFound, error.description)
                case .invalidOption: return DashboardAccess.error(.badRequest, error.description)
                default: return DashboardAccess.error(.internalServerError, error.description)
                }
            } catch let error as BadRequest {
                return DashboardAccess.error(.badRequest, error.message)
            } catch is BlockingTimedOut {
                return DashboardAccess.error(.serviceUnavailable, "the database did not answer within a minute")
            } catch {
                return DashboardAccess.error(.internalServerError, "\(error)")
            }
        }

        /// The answer to a `GET`.
        private func read(_ parts: [String], _ request: HTTPRequest) throws -> HTTPResponse {
            switch parts {
            case []:
                return .html(DashboardPage.html(csrfToken: access.csrfToken, readOnly: readOnly, schema: queue.schema))
            case ["assets", "app.js"]:
                return HTTPResponse(
                    status: .ok, headers: ["Content-Type": "text/javascript; charset=utf-8"],
                    body: Array(DashboardScript.source.utf8))
            case ["assets", "app.css"]:
                return HTTPResponse(
                    status: .ok, headers: ["Content-Type": "text/css; charset=utf-8"],
                    body: Array(DashboardPage.css.utf8))
            case ["api", "stats"]:
                return try json(JobsJSON.statistics(blocking { [queue] in try await queue.queueStatistics() }))
            case ["api", "overview"]:
                return try json(overview())
            case ["api", "workers"]:
                return try json(JobsJSON.workers(blocking { [queue] in try await queue.workers() }))
            case ["api", "periodic"]:
                return try json(JobsJSON.periodic(blocking { [queue] in try await queue.periodicJobs() }))
            case ["api", "throughput"]:
                let minutes = try request.queryValue("minutes").map { try Self.integer($0, "minutes") } ?? 15
                return try json(
                    JobsJSON.throughput(blocking { [queue] in try await queue.throughput(minutes: minutes) }))
            case ["api", "jobs"]:
                return try json(list(try Self.filter(request)))
            default:
                break
            }
            if parts.count == 3, parts[0] == "api", parts[1] == "jobs" {
                return try json(detail(try Self.jobID(parts[2])))
            }
            if parts.count == 4, parts[0] == "api", parts[1] == "jobs", parts[3] == "graph" {
                let job = try Self.jobID(parts[2])
                return try json(JobsJSON.graph(blocking { [queue] in try await queue.dependencyGraph(of: job) }))
            }
            return Self.notFound(request)
        }

        private static func notFound(_ request: HTTPRequest) -> HTTPResponse {
            DashboardAccess.error(.notFound, "no such page or API: \(request.method) \(request.path)")
        }

        // MARK: - Reading

        private func overview() throws -> [String: Any] {
            let (statistics, workers, periodic, throughput) = try blocking { [queue] in
                (
                    try await queue.queueStatistics(), try await queue.workers(), try await queue.periodicJobs(),
                    try await queue.throughput(minutes: 15)
                )
            }
            return [
                "stats": JobsJSON.statistics(statistics), "workers": JobsJSON.workers(workers),
                "periodic": JobsJSON.periodic(periodic), "throughput": JobsJSON.throughput(throughput),
            ]
        }

        private func list(_ filter: DurableJobFilter) throws -> [[String: Any]] {
            let (jobs, attempts) = try blocking { [queue] in
                let jobs = try await queue.jobs(filter)
                return (jobs, try await queue.failedAttempts(of: jobs.map(\.id)))
            }
            return jobs.map { JobsJSON.job($0, failedAttempts: attempts[$0.id] ?? []) }
        }

        private func detail(_ id: JobID) throws -> [String: Any] {
            let (job, attempts) = try blocking { [queue] in (try await queue.job(id), try await queue.attempts(of: id))
            }
            return JobsJSON.detail(job, attempts: attempts)
        }

        // MARK: - Actions

        /// Retries, cancels or deletes `ids`, answering as `pk-jobs` prints.
        private func act(_ action: String, on ids: [JobID]) throws -> [String: Any] {
            switch action {
            case "retry":
                let retried = try blocking { [queue] in try await queue.retry(ids) }
                return ["retried": retried.map(\.rawValue).sorted()]
            case "cancel":
                let states = try blocking { [queue] in
                    var states: [String: String] = [:]
                    for id in ids { states[String(id.rawValue)] = try await queue.cancel(id).rawValue }
                    return states
                }
                return ["states": states]
            case "delete":
                let deleted = try blocking { [queue] in try await queue.delete(ids) }
                return ["deleted": deleted.map(\.rawValue).sorted()]
            default:
                throw BadRequest(message: "no such action: \(action) (retry, cancel or delete)")
            }
        }

        /// The action for every job `filter` matches (at most 100,000), answering with how many it changed.
        private func actOnMatching(_ action: String, _ filter: DurableJobFilter) throws -> [String: Any] {
            switch action {
            case "retry":
                return ["retried": try blocking { [queue] in try await queue.retry(matching: filter) }]
            case "cancel", "delete":
                var filter = filter
                if action == "cancel", filter.states.isEmpty {
                    filter.states = [.blocked, .available, .running]
                }
                // Deleting every job is not one click away: a bulk delete names the states it deletes.
                guard action == "cancel" || !filter.states.isEmpty else {
                    throw BadRequest(message: "a bulk delete needs a state (state=completed, failed or cancelled)")
                }
                let bounded = filter
                let count = try blocking { [queue] in
                    var page = bounded
                    page.limit = 1_000
                    page.afterID = nil
                    var changed = 0
                    for _ in 0..<100 {
                        let jobs = try await queue.jobs(page)
                        guard let last = jobs.last else { break }
                        page.afterID = last.id
                        if action == "cancel" {
                            // A running job's cancellation is requested; the others are cancelled at once.
                            for job in jobs where !job.state.isFinished {
                                _ = try await queue.cancel(job.id)
                                changed += 1
                            }
                        } else {
                            changed += try await queue.delete(jobs.map(\.id)).count
                        }
                    }
                    return changed
                }
                return [action == "cancel" ? "cancelled" : "deleted": count]
            default:
                throw BadRequest(message: "no such action: \(action) (retry, cancel or delete)")
            }
        }

        // MARK: - Requests

        /// A request the API cannot take: 400 with the message.
        struct BadRequest: Error {
            let message: String
        }

        /// The listing filter of a request's query: `state` (comma-separated), `kind`, `queue`, `after`, `limit`
        /// (1 to 10,000; 100 by default), `createdAfter` and `createdBefore` (seconds since 1970).
        static func filter(_ request: HTTPRequest) throws -> DurableJobFilter {
            var filter = DurableJobFilter(limit: 100)
            if let states = request.queryValue("state"), !states.isEmpty {
                filter.states = Set(
                    try states.split(separator: ",").map { name in
                        guard let state = JobState(rawValue: String(name)) else {
                            throw BadRequest(message: "no such state: \(name)")
                        }
                        return state
                    })
            }
            if let kind = request.queryValue("kind"), !kind.isEmpty { filter.kinds = [kind] }
            if let queue = request.queryValue("queue"), !queue.isEmpty { filter.queues = [queue] }
            if let after = request.queryValue("after"), !after.isEmpty { filter.afterID = try jobID(after) }
            if let limit = request.queryValue("limit"), !limit.isEmpty { filter.limit = try integer(limit, "limit") }
            if let after = request.queryValue("createdAfter"), !after.isEmpty {
                filter.createdAfter = Date(timeIntervalSince1970: try seconds(after, "createdAfter"))
            }
            if let before = request.queryValue("createdBefore"), !before.isEmpty {
                filter.createdBefore = Date(timeIntervalSince1970: try seconds(before, "createdBefore"))
            }
            return filter
        }

        static func jobID(_ text: String) throws -> JobID {
            guard let raw = Int64(text), raw > 0 else { throw BadRequest(message: "not a job id: \(text)") }
            return JobID(rawValue: raw)
        }

        static func integer(_ text: String, _ name: String) throws -> Int {
            guard let value = Int(text) else { throw BadRequest(message: "\(name) must be an integer, not \(text)") }
            return value
        }

        static func seconds(_ text: String, _ name: String) throws -> Double {
            guard let value = Double(text), value.isFinite else {
                throw BadRequest(message: "\(name) must be seconds since 1970, not \(text)")
            }
            return value
        }

        private func json(_ value: Any) throws -> HTTPResponse {
            .json(Data(try JobsJSON.text(value).utf8))
        }
    }

    /// Runs `body` on the cooperative pool and blocks the calling thread until it is done, for a minute at most.
    /// Call it from a thread of the server, never from the cooperative pool: blocking the pool's threads can leave
    /// none to run `body` (a deadlock).
    func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = PKMutex<Result<T, any Error>?>(nil)
        Task.detached {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        // A database that does not answer (a lock, a lost connection) is a 503, not a thread held for ever.
        guard done.wait(timeout: .now() + 60) == .success else { throw BlockingTimedOut() }
        return try result.withLock { $0 }!.get()
    }

    /// ``blocking(_:)`` waited a minute in vain (its work goes on, and its answer is dropped).
    struct BlockingTimedOut: Error {}
#endif
