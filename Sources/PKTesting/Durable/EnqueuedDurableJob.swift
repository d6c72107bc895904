#if Postgres
    import Foundation
    import PKPostgres

    /// A job of a ``/PKPostgres/DurableProcedure`` type found in a queue's table: its input decoded, its options as
    /// stored, and the rest of its row.
    public struct EnqueuedDurableJob<P: DurableProcedure>: Sendable {
        /// The job's input, decoded as `P.Input`; `nil` when the job takes another job's output as its input
        /// (``/PKPostgres/DurableJobOptions/inputFrom``), whatever placeholder it was enqueued with.
        public let input: P.Input?
        /// The options the job was enqueued with, as stored: ``/PKPostgres/DurableJobOptions/runAt`` is always set
        /// (to the enqueue's time when none was given, to the microsecond otherwise), exclusive categories are
        /// sorted without duplicates, and dependencies are in id order without the input source.
        public let options: DurableJobOptions
        /// The job as the check saw it: state, attempts, errors, graph, input and output as JSON.
        public let snapshot: DurableJobSnapshot

        /// The job.
        public var id: JobID { snapshot.id }
    }

    /// The jobs of one ``/PKPostgres/DurableProcedure`` type found enqueued on a queue, in enqueue order: what the
    /// `PKExpectEnqueued…` and `PKAssertEnqueued…` checks look at.
    ///
    /// Read them in a transaction of your own to see its uncommitted jobs:
    ///
    /// ```swift
    /// let found = try await queue.withTransaction { transaction in
    ///     try createAccount(email: "ann@example.com", in: transaction)     // enqueues in `transaction`
    ///     return try EnqueuedDurableJobs(SendEmail.self, on: queue, in: transaction)
    /// }
    /// PKExpectEnqueued(found) { $0.input?.to == "ann@example.com" }
    /// ```
    public struct EnqueuedDurableJobs<P: DurableProcedure>: Sendable {
        /// The jobs of `P`'s kind, oldest first.
        public let jobs: [EnqueuedDurableJob<P>]
        /// The mark the jobs were enqueued after, if one was given.
        public let mark: DurableJobMark?

        /// Reads the jobs of `type`'s kind on `queue`'s database, all of them or only those enqueued after `mark`.
        ///
        /// - Throws: `DurableError.undecodableInput(kind:reason:)` when a job's input does not decode as
        ///   `P.Input` (a worker could not run it either); `PostgresError` when the database fails.
        public init(_ type: P.Type, on queue: DurableQueue, since mark: DurableJobMark? = nil) async throws {
            try self.init(try await queue.storedJobs(ofKind: P.kind, after: mark?.lastID ?? 0), mark: mark)
        }

        /// Reads the jobs of `type`'s kind inside the caller's transaction (`DurableQueue.withTransaction`), its own
        /// uncommitted jobs included; see the async initializer.
        public init(
            _ type: P.Type, on queue: DurableQueue, since mark: DurableJobMark? = nil,
            in transaction: PostgresConnection
        ) throws {
            try self.init(try queue.storedJobs(ofKind: P.kind, after: mark?.lastID ?? 0, in: transaction), mark: mark)
        }

        private init(_ stored: [DurableStore.StoredJob], mark: DurableJobMark?) throws {
            jobs = try stored.map { job in
                var input: P.Input?
                // A job enqueued one by one with an input source stores the placeholder input it was given.
                if job.options.inputFrom == nil, let json = job.snapshot.inputJSON {
                    do {
                        input = try JSONDecoder().decode(P.Input.self, from: Data(json.utf8))
                    } catch {
                        throw DurableError.undecodableInput(kind: P.kind, reason: "\(job.snapshot.id): \(error)")
                    }
                }
                return EnqueuedDurableJob(input: input, options: job.options, snapshot: job.snapshot)
            }
            self.mark = mark
        }
    }
#endif
