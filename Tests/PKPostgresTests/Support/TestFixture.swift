#if Postgres
    import Foundation
    import PKPostgres
    import PKCore
    import Testing

    /// One test's world: a fresh schema, a queue on it with ``TestJob`` and ``Relay`` registered, a ``Probe``,
    /// and the workers the test started. ``withFixture(_:)`` tears it down however the test ends: workers shut
    /// down and stopped, schema dropped.
    ///
    /// Thread-safe: `workers` is a PKMutex; the rest is immutable.
    final class TestFixture: Sendable {
        /// The server's connection string: the shared test server's unless the test has one of its own.
        let url: String
        /// The schema, unique to the test.
        let schema: String
        /// Where the test's jobs record what they do.
        let probe: Probe
        /// A queue on the schema with ``TestJob`` and ``Relay`` registered.
        let queue: DurableQueue
        private let workers = PKMutex<[DurableWorker]>([])

        init(url: String = TestDatabase.url) throws {
            self.url = url
            schema = TestDatabase.uniqueName()
            probe = Probe.make()
            queue = try DurableQueue(connectionString: url, schema: schema)
            try queue.register(TestJob.self)
            try queue.register(Relay.self)
        }

        /// Another queue on the same schema, with nothing registered.
        func makeQueue() throws -> DurableQueue {
            try DurableQueue(connectionString: url, schema: schema)
        }

        /// The input of a ``TestJob`` reporting to this test's probe.
        func input(_ label: String, value: Int = 0) -> TestInput {
            TestInput(probe: probe.name, label: label, value: value)
        }

        /// Makes and starts a worker of `queue` (by default the fixture's), stopped at tear-down.
        @discardableResult
        func startWorker(
            concurrency: Int = 2, lease: Duration = TestDatabase.lease, queue: DurableQueue? = nil,
            pollInterval: Duration = TestDatabase.pollInterval, starvationLimit: Duration = .seconds(60),
            queues: [String] = [DurableJobOptions.defaultQueue], queueConcurrency: [String: Int] = [:],
            retention: DurableRetention = .standard, periodicJobs: [DurablePeriodicJob] = []
        ) throws -> DurableWorker {
            let worker = try makeWorker(
                concurrency: concurrency, lease: lease, queue: queue, pollInterval: pollInterval,
                starvationLimit: starvationLimit, queues: queues, queueConcurrency: queueConcurrency,
                retention: retention, periodicJobs: periodicJobs)
            try worker.start()
            return worker
        }

        /// Makes a worker of `queue` (by default the fixture's) without starting it; stopped at tear-down.
        func makeWorker(
            concurrency: Int = 2, lease: Duration = TestDatabase.lease, queue: DurableQueue? = nil,
            pollInterval: Duration = TestDatabase.pollInterval, starvationLimit: Duration = .seconds(60),
            queues: [String] = [DurableJobOptions.defaultQueue], queueConcurrency: [String: Int] = [:],
            retention: DurableRetention = .standard, periodicJobs: [DurablePeriodicJob] = []
        ) throws -> DurableWorker {
            let number = workers.withLock { $0.count }
            let worker = try DurableWorker(
                queue: queue ?? self.queue, name: "\(schema)-worker\(number)", concurrency: concurrency,
                leaseDuration: lease, pollInterval: pollInterval, starvationLimit: starvationLimit, queues: queues,
                queueConcurrency: queueConcurrency, retention: retention, periodicJobs: periodicJobs)
            workers.withLock { $0.append(worker) }
            return worker
        }

        /// Shuts `worker` down with `gracePeriod` and waits until it has stopped.
        func stop(_ worker: DurableWorker, gracePeriod: Duration = .zero) async throws {
            worker.shutdown(gracePeriod: gracePeriod)
            try await withHangTimeout("\(worker.name) to stop") { await worker.waitUntilStopped() }
        }

        /// Runs `statement` in a transaction of the queue's.
        @discardableResult
        func sql(_ statement: String, _ parameters: [String?] = []) async throws -> PostgresResult {
            try await queue.withTransaction { try $0.execute(statement, parameters) }
        }

        /// The value of the first column of the first row of `statement` as an integer.
        func count(_ statement: String, _ parameters: [String?] = []) async throws -> Int {
            let result = try await sql(statement, parameters)
            guard let row = result.rows.first, let column = result.columns.first else { return -1 }
            return Int(try row.int64(column))
        }

        /// Takes job `id`'s lease away from the worker running it, as if another worker had taken the job over:
        /// its token is no longer the worker's, so the worker's next heartbeat finds the lease lost.
        func stealLease(of id: JobID) async throws {
            _ = try await sql(
                "UPDATE \(schema).jobs SET lease_token = lease_token + 1000000 WHERE id = $1::bigint",
                [String(id.rawValue)])
        }

        /// Waits until `id` is finished.
        func waitUntilFinished(_ id: JobID) async throws -> DurableJobSnapshot {
            try await withHangTimeout("\(id) to finish") { [queue] in try await queue.waitUntilFinished(id) }
        }

        /// Waits until `id` is finished and returns its output as `type`'s.
        func result<P: DurableProcedure>(of id: JobID, as type: P.Type) async throws -> P.Output {
            try await withHangTimeout("the result of \(id)") { [queue] in try await queue.result(of: id, as: type) }
        }

        /// Stops every worker, drops the schema, forgets the probe.
        func tearDown() async {
            for worker in workers.withLock({ $0 }) {
                do { try await stop(worker) } catch { Issue.record("tear-down: \(error)") }
            }
            workers.withLock { $0 = [] }
            do {
                try await runBlocking { [schema, url] in try TestDatabase.dropSchema(schema, on: url) }
            } catch {
                Issue.record("tear-down: could not drop \(schema): \(error)")
            }
            probe.unregister()
        }
    }

    /// Runs `body` with a new ``TestFixture`` on the server `url` names (by default the shared test server) and
    /// tears it down afterwards, whether `body` returns or throws.
    func withFixture<R>(url: String = TestDatabase.url, _ body: (TestFixture) async throws -> R) async throws -> R {
        let fixture = try TestFixture(url: url)
        do {
            let value = try await body(fixture)
            await fixture.tearDown()
            return value
        } catch {
            await fixture.tearDown()
            throw error
        }
    }
#endif
