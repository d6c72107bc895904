#if Postgres
    import Synchronization

    /// Makes sure a queue's schema is at this library's version before its first use, once per process (per
    /// queue): the first connection that needs it reads the version and, when the queue migrates automatically,
    /// applies the missing migrations; later ones skip the check. Two threads may both check the first time;
    /// migrations are idempotent and serialised by an advisory lock in the database, so that only costs a round
    /// trip.
    final class Migrator: Sendable {
        let schema: DurableSchema
        let mode: DurableQueue.Migration
        private let done = Atomic<Bool>(false)

        init(schema: DurableSchema, mode: DurableQueue.Migration) {
            self.schema = schema
            self.mode = mode
        }

        /// Checks (and, in automatic mode, migrates) the schema on `connection`.
        ///
        /// `inCallersTransaction`: the connection is inside a transaction of the caller's, which may still roll
        /// back; a migration applied in it is not remembered as done (the next use checks again), a version read
        /// there is (it was committed by someone).
        ///
        /// - Throws: ``DurableError/schemaNotMigrated(schema:version:required:)`` in manual mode when the schema
        ///   is behind; ``DurableError/invalidOption(_:)`` when it is newer than this library.
        func ensure(_ connection: PostgresConnection, inCallersTransaction: Bool = false) throws {
            guard !done.load(ordering: .acquiring) else { return }
            let required = schema.migrations.count
            let current = try schema.version(connection)
            if current < required {
                guard mode == .automatic else {
                    throw DurableError.schemaNotMigrated(schema: schema.name, version: current, required: required)
                }
                try schema.migrate(connection)
                if inCallersTransaction { return }
            } else if current > required {
                try schema.migrate(connection)  // throws: the schema is newer
            }
            done.store(true, ordering: .releasing)
        }
    }
#endif
