#if Postgres
    import Foundation
    import PKCore

    /// A queue of durable jobs kept in PostgreSQL: procedures that survive restarts and crashes and run on any
    /// number of worker processes (``DurableWorker``).
    ///
    /// ```swift
    /// let queue = try DurableQueue(connectionString: "postgresql://app@db/app")
    /// try queue.register(Resize.self)                     // on workers: the kinds they run
    /// let id = try await queue.enqueue(Resize.self, input: request)
    /// let image = try await queue.result(of: id, as: Resize.self)
    /// ```
    ///
    /// The first use creates the schema (``schema``, `procedurekit` by default) and its tables, or migrates them,
    /// safely from many processes at once; with ``Migration/manual`` it only checks that they are there. Thread-safe: every member may be called from any thread. Synchronous
    /// members block the caller on a database round trip and are unavailable from `async` code, which has
    /// `async` overloads; none of them runs libpq on the cooperative pool.
    public final class DurableQueue: Sendable {
        /// Whether a queue creates and migrates its schema itself.
        public enum Migration: Sendable, Hashable {
            /// The first use creates or migrates the schema (the default): the role needs the privilege to create
            /// a schema in the database (or the schema must exist) and tables in it.
            case automatic
            /// The queue never changes the schema: the first use checks its version and throws
            /// ``DurableError/schemaNotMigrated(schema:version:required:)`` when it is behind. For an application
            /// role without privileges to create anything; migrate separately with a queue in automatic mode
            /// (``DurableQueue/migrate()``), for example in a deploy step.
            case manual
        }

        /// The PostgreSQL schema holding the queue's tables.
        public let schema: String

        /// The schema version this library migrates to and works with (3: named queues and attempt histories).
        public static var schemaVersion: Int { DurableSchema.version }

        /// `package` for the benchmark's claim-cost row (W22).
        package let store: DurableStore
        /// `package` for PKTesting's `DurableTestWorker`, whose worker runs on a queue of its own over the same
        /// database.
        package let connectionString: String
        let lane: DatabaseLane
        private let registry = PKMutex<[String: DurableKind]>([:])
        let migrator: Migrator
        let watcher: JobWatcher
        /// The events of this queue's enqueues and workers in this process (``events(bufferingNewest:)``).
        let eventHub = DurableEventHub()

        /// Creates a queue over the database `connectionString` names (anything libpq accepts), in `schema`.
        ///
        /// Nothing connects until the first use.
        ///
        /// - Parameters:
        ///   - connectionString: The database, as libpq takes it: `postgresql://user@host/db` or `key=value` pairs.
        ///   - schema: The schema holding the queue's tables (lower-case letters, digits and `_`).
        ///   - migration: Whether the queue creates and migrates the schema at its first use (the default), or
        ///     leaves that to a separate step (``Migration/manual``).
        /// - Throws: ``DurableError/invalidSchemaName(_:)`` unless `schema` is lower-case letters, digits and `_`.
        public convenience init(
            connectionString: String, schema: String = "procedurekit", migration: Migration = .automatic
        ) throws {
            try self.init(
                connectionString: connectionString, schema: schema, migration: migration, statementTimeout: nil,
                lockTimeout: nil)
        }

        /// A queue whose own connection gives up on a statement after `statementTimeout` and on a row lock after
        /// `lockTimeout` (PostgreSQL's settings of those names): for the dashboard, whose requests must not wait
        /// for ever behind a lock a worker holds.
        package init(
            connectionString: String, schema: String, migration: Migration, statementTimeout: Duration?,
            lockTimeout: Duration?
        ) throws {
            let validated = try DurableSchema(schema)
            self.schema = schema
            self.connectionString = connectionString
            store = DurableStore(schema: validated)
            var settings: [String] = []
            for (name, value) in [("statement_timeout", statementTimeout), ("lock_timeout", lockTimeout)] {
                guard let value else { continue }
                let milliseconds = Int64((value.timeInterval * 1_000).rounded(.up))
                settings.append("SET \(name) = \(milliseconds)")
            }
            let statements = settings
            lane = DatabaseLane(label: "PKPostgres.DurableQueue.\(schema)", connectionString: connectionString) {
                connection in
                for statement in statements { try connection.execute(statement) }
            }
            let migrator = Migrator(schema: validated, mode: migration)
            self.migrator = migrator
            watcher = JobWatcher(connectionString: connectionString, store: store) { try migrator.ensure($0) }
        }

        // MARK: - Registration

        /// Registers `type`, so that workers of this queue claim and run jobs of its kind.
        ///
        /// - Throws: ``DurableError/duplicateKind(_:)`` when another type is registered under its kind.
        public func register<P: DurableProcedure>(_ type: P.Type) throws {
            let kind = TypedDurableRun<P>.kind()
            try registry.withLock { registry in
                guard registry[P.kind] == nil else { throw DurableError.duplicateKind(P.kind) }
                registry[P.kind] = kind
            }
        }

        /// The kinds registered, sorted.
        public var registeredKinds: [String] { registry.withLock { $0.keys.sorted() } }

        func kind(named name: String) -> DurableKind? { registry.withLock { $0[name] } }

        // MARK: - Schema

        /// Creates or migrates the schema now instead of at first use; does nothing when it is current. This is
        /// the separate migration step of queues in ``Migration/manual`` mode, whatever this queue's mode.
        public func migrate() async throws {
            try await lane.run { [self] connection in try store.schema.migrate(connection) }
        }

        func migrateOnce(_ connection: PostgresConnection) throws {
            try migrator.ensure(connection)
        }

        // MARK: - Enqueue

        /// Enqueues a job of `type` with `input`, in a transaction of its own, and returns its id (or, when
        /// `options.uniqueKey` is taken or `options.unique` finds a duplicate, the id of the job already there).
        ///
        /// - Throws: ``DurableError`` for bad options, an unencodable input or an unknown dependency;
        ///   ``PostgresError`` when the database fails.
        @available(*, noasync, message: "blocks on the database; use the async overload")
        public func enqueue<P: DurableProcedure>(
            _ type: P.Type, input: P.Input, options: DurableJobOptions = DurableJobOptions()
        ) throws -> JobID {
            let job = try newJob(type, input: input, options: options)
            return try lane.sync { connection in
                try migrateOnce(connection)
                return try connection.transaction { try insertAnnounced(job, $0) }
            }
        }

        /// Enqueues a job of `type` with `input`, in a transaction of its own; see the synchronous overload.
        public func enqueue<P: DurableProcedure>(
            _ type: P.Type, input: P.Input, options: DurableJobOptions = DurableJobOptions()
        ) async throws -> JobID {
            let job = try newJob(type, input: input, options: options)
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try connection.transaction { try insertAnnounced(job, $0) }
            }
        }

        /// Enqueues a job inside the caller's transaction (``withTransaction(_:)-6mk7i``), so that it exists only if
        /// the caller's own changes commit.
        public func enqueue<P: DurableProcedure>(
            _ type: P.Type, input: P.Input, options: DurableJobOptions = DurableJobOptions(),
            in transaction: PostgresConnection
        ) throws -> JobID {
            let job = try newJob(type, input: input, options: options)
            try migrator.ensure(transaction, inCallersTransaction: true)
            return try transaction.transaction { try insertAnnounced(job, $0) }
        }

        /// Enqueues one job of `type` per input, all with `options`, in one statement and one round trip (in a
        /// transaction of its own), and returns their ids in the inputs' order: thousands of jobs cost about what a
        /// few single enqueues do (benchmark W23). Up to 100,000 inputs.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for options a batch cannot take (a unique key or uniqueness,
        ///   dependencies or an input source: enqueue those one by one, or as a ``DurableGraph``) or too many inputs.
        public func enqueue<P: DurableProcedure>(
            _ type: P.Type, inputs: [P.Input], options: DurableJobOptions = DurableJobOptions()
        ) async throws -> [JobID] {
            let encoded = try batch(inputs, options: options)
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try connection.transaction {
                    try insertBatchAnnounced(kind: P.kind, inputs: encoded, options: options, $0)
                }
            }
        }

        /// Enqueues one job of `type` per input inside the caller's transaction; see the async overload.
        public func enqueue<P: DurableProcedure>(
            _ type: P.Type, inputs: [P.Input], options: DurableJobOptions = DurableJobOptions(),
            in transaction: PostgresConnection
        ) throws -> [JobID] {
            let encoded = try batch(inputs, options: options)
            try migrator.ensure(transaction, inCallersTransaction: true)
            return try transaction.transaction {
                try insertBatchAnnounced(kind: P.kind, inputs: encoded, options: options, $0)
            }
        }

        /// The inputs of a batch, encoded, after checking that its options suit one.
        private func batch<Input: Encodable>(_ inputs: [Input], options: DurableJobOptions) throws -> [String] {
            try options.validate()
            guard options.uniqueKey == nil, options.unique == nil, options.allDependencies.isEmpty else {
                throw DurableError.invalidOption(
                    "a batch takes no unique key or uniqueness, dependencies or input source: enqueue such jobs one by one"
                )
            }
            guard inputs.count <= 100_000 else {
                throw DurableError.invalidOption("a batch holds at most 100,000 jobs, not \(inputs.count)")
            }
            return try inputs.map { try DurableCoding.encode($0) }
        }

        /// Enqueues every job of `graph` in one transaction, under a new graph id.
        @available(*, noasync, message: "blocks on the database; use the async overload")
        public func enqueue(_ graph: DurableGraph) throws -> EnqueuedGraph {
            let entries = try graphEntries(graph)
            return try lane.sync { connection in
                try migrateOnce(connection)
                return try connection.transaction { try insertGraph(entries, $0) }
            }
        }

        /// Enqueues every job of `graph` in one transaction, under a new graph id.
        public func enqueue(_ graph: DurableGraph) async throws -> EnqueuedGraph {
            let entries = try graphEntries(graph)
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try connection.transaction { try insertGraph(entries, $0) }
            }
        }

        /// Enqueues every job of `graph` inside the caller's transaction.
        public func enqueue(_ graph: DurableGraph, in transaction: PostgresConnection) throws -> EnqueuedGraph {
            let entries = try graphEntries(graph)
            try migrator.ensure(transaction, inCallersTransaction: true)
            return try transaction.transaction { try insertGraph(entries, $0) }
        }

        /// Runs `body` in a transaction on a connection of the queue's, blocking the caller: enqueue jobs in it
        /// together with your own changes (`enqueue(_:input:options:in:)`). It commits when `body` returns, and
        /// throws ``PostgresError`` `25P02` instead when a statement failed inside `body` whose error `body` caught:
        /// the server aborted the transaction, and nothing of it is kept.
        @available(*, noasync, message: "blocks on the database; use the async overload")
        public func withTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
            try lane.sync { connection in
                try migrateOnce(connection)
                return try connection.transaction(body)
            }
        }

        /// Runs `body` in a transaction on a connection of the queue's, on the queue's database thread; see the
        /// synchronous overload.
        public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T)
            async throws -> T
        {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try connection.transaction(body)
            }
        }

        private func newJob<P: DurableProcedure>(_ type: P.Type, input: P.Input, options: DurableJobOptions) throws
            -> DurableStore.NewJob
        {
            try options.validate()
            return DurableStore.NewJob(
                kind: P.kind, input: try DurableCoding.encode(input), options: options, graph: nil)
        }

        private func graphEntries(_ graph: DurableGraph) throws -> [DurableGraph.Entry] {
            if let problem = graph.problems.first { throw problem }
            for entry in graph.entries { try entry.options.validate() }
            return graph.entries
        }

        private func insertGraph(_ entries: [DurableGraph.Entry], _ connection: PostgresConnection) throws
            -> EnqueuedGraph
        {
            let graph = try store.newGraph(connection)
            var ids: [JobID] = []
            ids.reserveCapacity(entries.count)
            for entry in entries {
                var options = entry.options
                options.dependencies += entry.after.map { ids[$0.index] }
                if let source = entry.inputFrom { options.inputFrom = ids[source.index] }
                ids.append(
                    try insertAnnounced(
                        DurableStore.NewJob(kind: entry.kind, input: entry.input, options: options, graph: graph),
                        connection))
            }
            return EnqueuedGraph(id: graph, jobs: ids)
        }

        // MARK: - Cancellation

        /// Cancels a job: at once when it has not started (its dependents are cancelled too, unless they ignore
        /// failed dependencies); when it runs, its worker cancels its procedure within moments (notified at
        /// once, and at the next heartbeat at the latest) and records it cancelled. Returns the state after the
        /// request: ``JobState/running`` while the worker has yet to act, a final state otherwise.
        @available(*, noasync, message: "blocks on the database; use the async overload")
        public func cancel(_ id: JobID) throws -> JobState {
            try lane.sync { connection in
                try migrateOnce(connection)
                return try store.cancel(id, reason: "cancelled by request", connection)
            }
        }

        /// Cancels a job; see the synchronous overload.
        public func cancel(_ id: JobID) async throws -> JobState {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.cancel(id, reason: "cancelled by request", connection)
            }
        }

        // MARK: - Queries

        /// The job as the database holds it now.
        ///
        /// - Throws: ``DurableError/jobNotFound(_:)``.
        public func job(_ id: JobID) async throws -> DurableJobSnapshot {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                guard let snapshot = try store.snapshot(of: id, connection) else { throw DurableError.jobNotFound(id) }
                return snapshot
            }
        }

        /// How many jobs of `graph` are in each state now.
        public func graph(_ graph: GraphID) async throws -> DurableGraphSummary {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return DurableGraphSummary(id: graph, counts: try store.graphCounts(graph, connection))
            }
        }

        /// Suspends until the job is in a final state, and returns it. Cancelling the awaiting task stops the wait
        /// (with `CancellationError`), not the job.
        public func waitUntilFinished(_ id: JobID) async throws -> DurableJobSnapshot {
            try await watcher.wait(for: id)
        }

        /// Suspends until every job of `graph` is in a final state, and returns the counts.
        public func waitUntilFinished(graph: GraphID) async throws -> DurableGraphSummary {
            while true {
                let summary = try await self.graph(graph)
                if summary.isFinished { return summary }
                try await Task.sleep(for: .milliseconds(100))
            }
        }

        /// Suspends until the job finishes, and returns its output decoded as `type`'s `Output`.
        ///
        /// - Throws: ``DurableError/jobFailed(_:errors:)`` or ``DurableError/jobCancelled(_:errors:)`` with the
        ///   job's error history; ``DurableError/undecodableOutput(_:reason:)``; `CancellationError` when the
        ///   awaiting task is cancelled (the job goes on).
        public func result<P: DurableProcedure>(of id: JobID, as type: P.Type) async throws -> P.Output {
            let snapshot = try await waitUntilFinished(id)
            switch snapshot.state {
            case .completed:
                do {
                    return try JSONDecoder().decode(P.Output.self, from: Data((snapshot.outputJSON ?? "null").utf8))
                } catch {
                    throw DurableError.undecodableOutput(id, reason: "\(error)")
                }
            case .cancelled:
                throw DurableError.jobCancelled(id, errors: snapshot.errors)
            case .failed, .blocked, .available, .running:
                throw DurableError.jobFailed(id, errors: snapshot.errors)
            }
        }

        // MARK: - Operations

        /// Deletes jobs that finished more than `age` ago, except those an unfinished job still depends on, and
        /// returns how many. Their unique keys become free. Works in transactions of 1,000 jobs, oldest first, and
        /// never deletes a job that an enqueue running at the same time names as a dependency or input source.
        public func prune(finishedBefore age: Duration) async throws -> Int {
            // At most 2,800 years: PostgreSQL's intervals and timestamps go no further.
            let seconds = Swift.min(age.timeInterval, 9e10)
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.prune(olderThan: max(0, seconds), connection)
            }
        }
    }
#endif
