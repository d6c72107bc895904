#if Postgres
    import PKPostgres

    /// A point in a durable queue's history of enqueues: checks given a mark see only the jobs enqueued after it,
    /// so that jobs an earlier step of the test (or an earlier test on the same schema) enqueued do not count.
    ///
    /// A mark is the last job id the database had handed out when it was taken, committed or not; every job
    /// enqueued later has a greater id. Taken inside a transaction before the code under test enqueues, it makes a
    /// check at the end of that transaction see the transaction's own jobs (and any that other connections
    /// enqueued and committed meanwhile).
    ///
    /// ```swift
    /// let mark = try await DurableJobMark(queue)
    /// try await signUp(email: "ann@example.com")      // enqueues a welcome email
    /// let email = try await PKExpectEnqueued(SendEmail.self, on: queue, since: mark)
    /// ```
    public struct DurableJobMark: Sendable, Hashable, CustomStringConvertible {
        /// The last job id handed out when the mark was taken; 0 when none was.
        let lastID: Int64

        /// Takes a mark on `queue`'s database now (creating or migrating the schema first, as any use of the queue
        /// does).
        ///
        /// - Throws: `PostgresError` when the database fails.
        public init(_ queue: DurableQueue) async throws {
            lastID = try await queue.lastJobID()
        }

        /// Takes a mark inside the caller's transaction (`DurableQueue.withTransaction`), on its connection's
        /// thread.
        ///
        /// - Throws: `PostgresError` when the database fails.
        public init(_ queue: DurableQueue, in transaction: PostgresConnection) throws {
            lastID = try queue.lastJobID(in: transaction)
        }

        /// `after job #41`, or `from the first job`.
        public var description: String {
            lastID == 0 ? "from the first job" : "after \(JobID(rawValue: lastID))"
        }
    }
#endif
