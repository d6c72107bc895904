#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    /// The dashboard as an operator uses it: headless Chromium (driven through `chromedriver`) against
    /// `pk-jobs serve`, with a fleet of DurableFleet worker processes running on the real server. Screenshots go
    /// to `.build/dashboard-screenshots/`.
    ///
    /// Needs Chromium and its driver (Scripts/chromium.sh installs them); with `PK_REQUIRE_BROWSER=1` (CI) their
    /// absence fails the test loudly instead of skipping it.
    @Suite(.enabled(if: BrowserFixture.ready, "needs PK_POSTGRES_URL, pk-jobs, DurableFleet and Chromium"), .serialized)
    struct DashboardBrowserTests {

        @Test func anOperatorWatchesTheFleetRetriesAFailedJobPausesAQueueAndReadsAGraph() async throws {
            let (chromium, chromedriver) = try #require(BrowserFixture.browser)
            try await withFixture { fixture in
                let database = fixture.url
                let schema = fixture.schema
                try await fixture.queue.migrate()
                let injected = "<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">"
                // A graph (so some jobs wait on others), a fifth of it poisoned, every job labelled with markup.
                _ = try FleetProcessTests.run(
                    database, schema,
                    [
                        "enqueue", "--jobs", "40", "--dag", "--seed", "7", "--poison", "0.2", "--work-ms", "30",
                        "--retry-wait-ms", "10", "--label", injected,
                    ])
                let server = try ChildProcess(
                    executable: try #require(AdminTool.executable),
                    arguments: ["--database", database, "--schema", schema, "serve", "--port", "0"],
                    environment: ProcessInfo.processInfo.environment.merging(["PK_JOBS_TOKEN": "browser-secret"]) {
                        _, new in new
                    })
                defer {
                    server.send(SIGTERM)
                    _ = server.waitForExit(timeout: 30)
                }
                #expect(server.waitForOutput(containing: "http://", timeout: 60), "pk-jobs serve: \(server.output)")
                let address = try #require(
                    server.output.split(separator: "\n").first { $0.hasPrefix("http://") }.map(String.init))

                let shots = BrowserFixture.screenshotDirectory
                try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
                let browser = try WebDriver(
                    chromedriver: chromedriver, chromium: chromium, logPath: "\(shots)/chromedriver.log")
                defer { browser.quit() }

                // Without the token: 401, and nothing of the fleet shows.
                try browser.open(address)
                try browser.waitFor("the 401 answer") {
                    (try browser.execute("return document.body.innerText") as? String)?.contains("token") == true
                }
                #expect(try browser.elements("#queues").isEmpty)

                // With it once: a cookie from then on. The overview counts change live as the workers run.
                try browser.open(address + "?token=browser-secret")
                let defaultRow = "#queues tr[data-queue=\"default\"]"
                _ = try browser.element(defaultRow)
                let before = try BrowserFixture.count(browser, queue: "default", state: "completed")
                let workers = try (1...2).map { index in
                    try FleetProcessTests.fleet(
                        database, schema,
                        ["work", "--worker", "browser-\(index)", "--concurrency", "4", "--lease-ms", "3000"])
                }
                defer {
                    for worker in workers { worker.send(SIGTERM) }
                    for worker in workers { _ = worker.waitForExit(timeout: 60) }
                }
                try browser.waitFor("the completed count to grow without a reload", timeout: 120) {
                    try BrowserFixture.count(browser, queue: "default", state: "completed") > before
                }
                try browser.waitFor("the workers to be listed", timeout: 60) {
                    try browser.elements("#workers tr[data-worker]").count == 2
                }
                try browser.screenshot(to: "\(shots)/1-overview.png")

                // Every job has ended (poisoned ones failed) once nothing is left to run.
                try await eventually("the run to settle", timeout: .seconds(180)) {
                    let statistics = try await fixture.queue.queueStatistics()
                    return statistics.count(queue: "default", state: .available)
                        + statistics.count(queue: "default", state: .running)
                        + statistics.count(queue: "default", state: .blocked) == 0
                }
                let failed = try await fixture.queue.jobs(DurableJobFilter(states: [.failed]))
                let victim = try #require(failed.first)

                // The failed job's page: its label is text, and the injected markup did nothing.
                try browser.open(address + "#/jobs?state=failed")
                _ = try browser.element("#jobs tr[data-job=\"\(victim.id.rawValue)\"]")
                try browser.click("#jobs tr[data-job=\"\(victim.id.rawValue)\"] a[data-job-link]")
                #expect(try browser.text(of: "#job-label") == injected)
                #expect(try browser.execute("return typeof window.__pwned") as? String == "undefined")
                #expect(try browser.elements("#job-input").count == 1)
                try browser.screenshot(to: "\(shots)/2-failed-job.png")

                // Healed, then retried from the page: it completes.
                _ = try FleetProcessTests.run(database, schema, ["heal"])
                try browser.click("#retry")
                try browser.waitFor("the confirmation") { browser.alertText() != nil }
                try browser.acceptAlert()
                try browser.waitFor("the retried job to complete", timeout: 120) {
                    try browser.attribute(of: "#job-state", "data-state") == "completed"
                }
                #expect(try await fixture.queue.job(victim.id).state == .completed)
                try browser.screenshot(to: "\(shots)/3-retried-job.png")

                // Pause and resume the queue from the overview.
                try browser.open(address + "#/")
                try browser.click("\(defaultRow) button[data-action=\"pause\"]")
                try browser.waitFor("the confirmation") { browser.alertText() != nil }
                try browser.acceptAlert()
                try browser.waitFor("the queue to show paused") {
                    try browser.attribute(of: defaultRow, "data-paused") == "true"
                }
                #expect(try await fixture.queue.queueStatistics().paused == ["default"])
                try browser.screenshot(to: "\(shots)/4-paused.png")
                try browser.click("\(defaultRow) button[data-action=\"resume\"]")
                try browser.waitFor("the confirmation") { browser.alertText() != nil }
                try browser.acceptAlert()
                try browser.waitFor("the queue to show running") {
                    try browser.elements("\(defaultRow)[data-paused=\"true\"]").isEmpty
                }
                #expect(try await fixture.queue.queueStatistics().paused.isEmpty)

                // A graph: every node drawn in its state, as the database has it.
                let root = try await BrowserFixture.jobWithTheLargestGraph(fixture.queue)
                let graph = try await fixture.queue.dependencyGraph(of: root)
                try browser.open(address + "#/graph/\(root.rawValue)")
                try browser.waitFor("the graph's nodes") {
                    try browser.elements("#graph g.node").count == graph.nodes.count
                }
                for node in graph.nodes {
                    let drawn = "#graph g.node[data-job=\"\(node.id.rawValue)\"]"
                    #expect(try browser.attribute(of: drawn, "data-state") == node.state.rawValue)
                }
                #expect(try browser.elements("#graph line.edge").count == graph.edges.count)
                try browser.screenshot(to: "\(shots)/5-graph.png")
                #expect(try browser.execute("return typeof window.__pwned") as? String == "undefined")
            }
        }
    }

    /// What the browser test needs, found once.
    enum BrowserFixture {
        /// Chromium's and chromedriver's paths (Scripts/chromium.sh paths), or `nil` when either is missing.
        static let browser: (chromium: String, chromedriver: String)? = {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Scripts/chromium.sh").path
            guard let child = try? ChildProcess(executable: "/bin/bash", arguments: [script, "paths"]),
                child.waitForExit(timeout: 30) == .exited(0)
            else { return nil }
            let parts = child.output.split(whereSeparator: \.isWhitespace).map(String.init)
            return parts.count >= 2 ? (parts[0], parts[1]) : nil
        }()

        /// Whether the test runs: a server, the two products, and a browser; `PK_REQUIRE_BROWSER=1` makes a missing
        /// browser a failure instead (the suite runs and `#require` fails).
        static var ready: Bool {
            #if PK_TSAN
                false
            #else
                let required = ProcessInfo.processInfo.environment["PK_REQUIRE_BROWSER"] == "1"
                return FleetFixture.ready && AdminTool.executable != nil && (browser != nil || required)
            #endif
        }

        /// `.build/dashboard-screenshots` of the repository.
        static let screenshotDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/dashboard-screenshots").path

        /// The count the overview shows for `queue` and `state`.
        static func count(_ browser: WebDriver, queue: String, state: String) throws -> Int {
            let cell = "#queues tr[data-queue=\"\(queue)\"] td[data-state=\"\(state)\"]"
            return Int(try browser.attribute(of: cell, "data-count") ?? "") ?? -1
        }

        /// The job whose dependency graph has the most jobs, among the first 40.
        static func jobWithTheLargestGraph(_ queue: DurableQueue) async throws -> JobID {
            var best: (JobID, Int)?
            for job in try await queue.jobs(DurableJobFilter(limit: 40)) {
                let size = try await queue.dependencyGraph(of: job.id).nodes.count
                if best == nil || size > best!.1 { best = (job.id, size) }
            }
            return try #require(best).0
        }
    }
#endif
