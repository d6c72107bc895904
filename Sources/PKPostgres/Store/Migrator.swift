#if Postgres
    import Synchronization

    /// Migrates a queue's schema once per process (per queue): the first connection that needs it runs the
    /// migrations, later ones skip them. Two threads may both migrate the first time; migrations are idempotent
    /// and serialised by an advisory lock in the database, so that only costs a round trip.
    final class Migrator: Sendable {
        let schema: DurableSchema
        private let done = Atomic<Bool>(false)

        init(schema: DurableSchema) { self.schema = schema }

        func ensure(_ connection: PostgresConnection) throws {
            guard !done.load(ordering: .acquiring) else { return }
            try schema.migrate(connection)
            done.store(true, ordering: .releasing)
        }
    }
#endif
