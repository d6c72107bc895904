#if Postgres
    import Foundation
    import PKHTTPServer
    import PKJobsDashboard
    import PKPostgres
    import Testing

    /// The dashboard's routes, access rules and API shapes, called directly (no socket), against the real server;
    /// and `pk-jobs serve`'s refusals.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"))
    struct DashboardTests {

        static func request(
            _ method: String = "GET", path: String, query: [String: String] = [:], headers: HTTPHeaders = [:]
        ) -> HTTPRequest {
            var headers = headers
            if !headers.contains("Host") { headers["Host"] = "127.0.0.1:8080" }
            return HTTPRequest(
                method: method, path: path,
                queryItems: query.sorted { $0.key < $1.key }.map { HTTPQueryItem(name: $0.key, value: $0.value) },
                headers: headers, body: [], peerAddress: "127.0.0.1")
        }

        /// The dashboard's answer, from a thread of its own: it blocks its caller on the database, which a thread of
        /// the cooperative pool (where a test runs) must never do.
        static func respond(_ dashboard: Dashboard, _ request: HTTPRequest) async throws -> HTTPResponse {
            try await runBlocking { dashboard.respond(to: request) }
        }

        static func json(_ response: HTTPResponse) -> Any? {
            guard case .bytes(let body) = response.body else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        }

        static func text(_ response: HTTPResponse) -> String {
            guard case .bytes(let body) = response.body else { return "" }
            return String(decoding: body, as: UTF8.self)
        }

        @Test func withATokenOnlyTheBearerOrTheSessionCookieGetsIn() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                let access = DashboardAccess(token: "s3cret", loopback: true)
                let dashboard = Dashboard(queue: fixture.queue, access: access, readOnly: false)
                #expect(try await Self.respond(dashboard, Self.request(path: "/api/stats")).status.code == 401)
                #expect(try await Self.respond(dashboard, Self.request(path: "/")).status.code == 401)
                let wrong = Self.request(path: "/api/stats", headers: ["Authorization": "Bearer s3cres"])
                #expect(try await Self.respond(dashboard, wrong).status.code == 401)
                let bearer = Self.request(path: "/api/stats", headers: ["Authorization": "Bearer s3cret"])
                #expect(try await Self.respond(dashboard, bearer).status.code == 200)
                // The one-time link: a redirect that sets the cookie (never the token itself) and drops the token.
                let login = try await Self.respond(dashboard, Self.request(path: "/", query: ["token": "s3cret"]))
                #expect(login.status.code == 303)
                #expect(login.headers["Location"] == "/")
                let cookie = try #require(login.headers["Set-Cookie"])
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict"))
                #expect(!cookie.contains("s3cret"))
                let session = String(try #require(cookie.split(separator: ";").first))
                #expect(
                    try await Self.respond(dashboard, Self.request(path: "/", query: ["token": "nope"])).status.code
                        == 401)
                let page = try await Self.respond(
                    dashboard, Self.request(path: "/", headers: ["Cookie": "a=b; \(session)"]))
                #expect(page.status.code == 200)
                #expect(Self.text(page).contains(access.csrfToken))
                #expect(
                    dashboard.respond(
                        to: Self.request(path: "/api/stats", headers: ["Cookie": "pk_jobs_session=forged"])
                    )
                    .status.code == 401)
            }
        }

        @Test func aStateChangeByCookieNeedsThePagesCSRFTokenButOneByBearerDoesNot() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("victim"))
                let access = DashboardAccess(token: "s3cret", loopback: true)
                let dashboard = Dashboard(queue: fixture.queue, access: access, readOnly: false)
                let login = try await Self.respond(dashboard, Self.request(path: "/", query: ["token": "s3cret"]))
                let session = String(try #require(login.headers["Set-Cookie"]?.split(separator: ";").first))
                let forged = Self.request("POST", path: "/api/jobs/\(id.rawValue)/cancel", headers: ["Cookie": session])
                #expect(try await Self.respond(dashboard, forged).status.code == 403)
                #expect(try await fixture.queue.job(id).state == .available)
                let fromPage = Self.request(
                    "POST", path: "/api/jobs/\(id.rawValue)/cancel",
                    headers: ["Cookie": session, "X-CSRF-Token": access.csrfToken])
                let cancelled = try await Self.respond(dashboard, fromPage)
                #expect(cancelled.status.code == 200)
                #expect(
                    (Self.json(cancelled) as? [String: Any])?["states"] as? [String: String] == [
                        "\(id.rawValue)": "cancelled"
                    ])
                let byBearer = Self.request(
                    "POST", path: "/api/jobs/\(id.rawValue)/retry", headers: ["Authorization": "Bearer s3cret"])
                #expect(try await Self.respond(dashboard, byBearer).status.code == 200)
                #expect(try await fixture.queue.job(id).state == .available)
                // Without a token (loopback only), a state change still needs the CSRF token.
                let open = Dashboard(
                    queue: fixture.queue, access: DashboardAccess(token: nil, loopback: true), readOnly: false)
                #expect(
                    try await Self.respond(open, Self.request("POST", path: "/api/queues/default/pause")).status.code
                        == 403)
                #expect(try await fixture.queue.queueStatistics().paused.isEmpty)
            }
        }

        @Test func aForeignHostIsRefusedOnLoopbackAgainstDNSRebinding() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                let dashboard = Dashboard(
                    queue: fixture.queue, access: DashboardAccess(token: nil, loopback: true), readOnly: false)
                let rebound = Self.request(path: "/api/stats", headers: ["Host": "evil.example:8080"])
                #expect(try await Self.respond(dashboard, rebound).status.code == 403)
                for host in ["localhost:9", "127.0.0.1", "[::1]:8080"] {
                    #expect(
                        try await Self.respond(dashboard, Self.request(path: "/assets/app.js", headers: ["Host": host]))
                            .status.code
                            == 200)
                }
            }
        }

        @Test func readOnlyRefusesEveryActionAndShowsNone() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("kept"))
                let access = DashboardAccess(token: nil, loopback: true)
                let dashboard = Dashboard(queue: fixture.queue, access: access, readOnly: true)
                for path in ["/api/jobs/\(id.rawValue)/cancel", "/api/jobs/delete", "/api/queues/default/pause"] {
                    let request = Self.request("POST", path: path, headers: ["X-CSRF-Token": access.csrfToken])
                    #expect(try await Self.respond(dashboard, request).status.code == 403)
                }
                #expect(try await fixture.queue.job(id).state == .available)
                #expect(
                    Self.text(try await Self.respond(dashboard, Self.request(path: "/"))).contains(
                        "name=\"read-only\" content=\"true\""))
            }
        }

        @Test func theAPIAnswersInPkJobsShapesWithTheSecurityHeaders() async throws {
            try await withFixture { fixture in
                var input = fixture.input("<script>alert(1)</script>")
                input.failingAttempts = 1
                let failed = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never, queue: "mail"))
                try fixture.startWorker(queues: ["mail"])
                #expect(try await fixture.waitUntilFinished(failed).state == .failed)
                let dashboard = Dashboard(
                    queue: fixture.queue, access: DashboardAccess(token: nil, loopback: true), readOnly: false)

                let stats = try await Self.respond(dashboard, Self.request(path: "/api/stats"))
                #expect(stats.headers["Content-Security-Policy"]?.contains("script-src 'self'") == true)
                #expect(stats.headers["X-Content-Type-Options"] == "nosniff")
                let tool = try AdminTool.run(fixture, ["stats", "--json"])
                let served = try #require(Self.json(stats) as? [String: Any])
                #expect(
                    served["queues"] as? [String: [String: Int]] == tool.object?["queues"] as? [String: [String: Int]])
                #expect(served["paused"] as? [String] == tool.object?["paused"] as? [String])

                let list = try #require(
                    Self.json(
                        try await Self.respond(dashboard, Self.request(path: "/api/jobs", query: ["state": "failed"])))
                        as? [[String: Any]])
                let listedByTool = try #require(
                    try AdminTool.run(fixture, ["list", "--state", "failed", "--json"]).array)
                #expect(list.map { $0["id"] as? Int } == listedByTool.map { $0["id"] as? Int })
                #expect(list.first?["state"] as? String == "failed")
                #expect((list.first?["errors"] as? [[String: Any]])?.count == 1)

                let detail = try #require(
                    Self.json(try await Self.respond(dashboard, Self.request(path: "/api/jobs/\(failed.rawValue)")))
                        as? [String: Any])
                #expect((detail["input"] as? [String: Any])?["label"] as? String == "<script>alert(1)</script>")
                #expect((detail["attempts"] as? [[String: Any]])?.count == 1)

                let graph = try #require(
                    Self.json(
                        try await Self.respond(dashboard, Self.request(path: "/api/jobs/\(failed.rawValue)/graph")))
                        as? [String: Any])
                #expect((graph["nodes"] as? [[String: Any]])?.first?["state"] as? String == "failed")

                let overview = try #require(
                    Self.json(try await Self.respond(dashboard, Self.request(path: "/api/overview"))) as? [String: Any])
                #expect(Set(overview.keys) == ["stats", "workers", "periodic", "throughput"])
                // The page carries no job data at all: the script reads it from the API and writes it as text.
                let page = Self.text(try await Self.respond(dashboard, Self.request(path: "/")))
                #expect(!page.contains("alert(1)"))
                let script = Self.text(try await Self.respond(dashboard, Self.request(path: "/assets/app.js")))
                #expect(!script.contains("innerHTML"))
            }
        }

        @Test func badRequestsGetA4xxWithAReason() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                let dashboard = Dashboard(
                    queue: fixture.queue, access: DashboardAccess(token: nil, loopback: true), readOnly: false)
                let cases: [(HTTPRequest, Int)] = [
                    (Self.request(path: "/api/jobs/abc"), 400),
                    (Self.request(path: "/api/jobs/-4"), 400),
                    (Self.request(path: "/api/jobs/999999999"), 404),
                    (Self.request(path: "/api/jobs", query: ["state": "bogus"]), 400),
                    (Self.request(path: "/api/jobs", query: ["limit": "0"]), 400),
                    (Self.request(path: "/api/throughput", query: ["minutes": "100000"]), 400),
                    (Self.request(path: "/api/nothing"), 404),
                    (Self.request(path: "/etc/passwd"), 404),
                    (Self.request("DELETE", path: "/api/jobs/1"), 403),
                ]
                for (request, status) in cases {
                    let response = try await Self.respond(dashboard, request)
                    #expect(response.status.code == status, "\(request.method) \(request.path) \(request.queryItems)")
                    #expect((Self.json(response) as? [String: Any])?["error"] is String)
                }
            }
        }

        @Test(.enabled(if: AdminTool.ready, "needs the pk-jobs product"))
        func serveRefusesANonLoopbackAddressWithoutAToken() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                var environment = ProcessInfo.processInfo.environment
                environment["PK_JOBS_TOKEN"] = nil
                let refused = try AdminTool.execute(
                    [
                        "--database", fixture.url, "--schema", fixture.schema, "serve", "--bind", "0.0.0.0", "--port",
                        "0",
                    ],
                    environment: environment)
                #expect(refused.status == 2)
                #expect(refused.standardError.contains("PK_JOBS_TOKEN"))
                let badPort = try AdminTool.run(fixture, ["serve", "--port", "70000"])
                #expect(badPort.status == 2)
                let notMigrated = try AdminTool.execute(
                    ["--database", fixture.url, "--schema", "never_migrated_here", "serve", "--port", "0"])
                #expect(notMigrated.status == 1)
            }
        }
    }
#endif
