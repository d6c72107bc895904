#if Postgres
    import Foundation
    import PKPostgres

    /// Faults the server injects into itself at one statement of a worker's: a trigger of the test's schema
    /// (`BEFORE UPDATE ON jobs FOR EACH ROW`) looks at the statement the client sent (`current_query()`) and, when
    /// it is the armed one, terminates its own backend mid-statement (the transaction rolls back, the client sees a
    /// lost connection) or stalls it (`pg_sleep`) so that the test can restart the server under it.
    ///
    /// Everything lives in the test's schema and goes with it, so suites sharing the server never meet a fault.
    /// A sequence counts the statements that matched: `nextval` is not rolled back with the transaction the fault
    /// kills (an update of a table would be), so an armed fault fires exactly `times` times, and ``fired()`` says
    /// how many.
    ///
    /// Thread-safe: immutable; its work runs on the queue's database thread.
    struct FaultInjector: Sendable {
        /// One of the worker's statements, as a `LIKE` pattern over the text the client sent.
        struct Statement: Sendable, CustomStringConvertible {
            /// Matched against `current_query()` (`\_` is a literal underscore).
            let pattern: String
            let description: String

            /// The claim: `SELECT * FROM <schema>.claim_jobs(...)` (the fault comes at its final `UPDATE`, after
            /// the job's categories were taken).
            static let claim = Statement(pattern: "%.claim\\_jobs(%", description: "the claim")
            /// The heartbeat: the statement whose `renewed AS (UPDATE ...)` extends the leases.
            static let heartbeat = Statement(pattern: "%renewed AS (%UPDATE%", description: "the heartbeat")
            /// The completion: `complete_job(...)`, in the transaction of the job's completion hook.
            static let completion = Statement(pattern: "%.complete\\_job(%", description: "the completion")
            /// A failed attempt's record: `fail_job(...)`, one statement.
            static let failure = Statement(pattern: "%.fail\\_job(%", description: "the failure record")
            /// A job given back without spending its attempt (at shutdown): `release_job(...)`, one statement.
            static let release = Statement(pattern: "%.release\\_job(%", description: "the release")
            /// A running job's cancellation, as requested: `cancel_running_job(...)`, one statement.
            static let cancellation = Statement(
                pattern: "%.cancel\\_running\\_job(%", description: "the cancellation record")
            /// The reaper's batch: `reap_expired(...)`, in the transaction that holds the reaper's advisory lock.
            static let reaperBatch = Statement(pattern: "%.reap\\_expired(%", description: "the reaper's batch")
            /// A `COMMIT`: seen only by the commit-time trigger of ``watchCommits(of:)``.
            static let commit = Statement(pattern: "COMMIT", description: "a commit")
        }

        /// What the server does to an armed statement.
        enum Fault: Sendable {
            /// Terminates its own connection mid-statement (`pg_terminate_backend(pg_backend_pid())`).
            case terminate
            /// Sleeps this long inside the statement (holding its locks), then lets it go on.
            case stall(seconds: Int)
            /// Lets the statement go on, but makes its transaction's `COMMIT` wait for a synchronous standby
            /// (`synchronous_commit = on` for that transaction): on a server whose `synchronous_standby_names` names
            /// a standby that never comes, the commit is written and then waits (`SyncRep`) for good, its reply
            /// held back, until the backend is terminated.
            case holdCommitReply
        }

        /// The schema the trigger and its bookkeeping live in.
        let schema: String
        /// The queue whose connection arms and reads the faults (not a worker's).
        let queue: DurableQueue

        /// Migrates `fixture`'s schema and installs the (disarmed) fault trigger on its jobs table.
        static func install(_ fixture: TestFixture) async throws -> FaultInjector {
            try await fixture.queue.migrate()
            let injector = FaultInjector(schema: fixture.schema, queue: fixture.queue)
            let schema = fixture.schema
            try await fixture.queue.withTransaction { connection in
                _ = try connection.execute(
                    """
                    CREATE TABLE \(schema).fault_plan (
                        pattern text NOT NULL, action text NOT NULL, times bigint NOT NULL, stall_seconds float8 NOT NULL);
                    CREATE SEQUENCE \(schema).fault_matches;
                    CREATE FUNCTION \(schema).inject_fault() RETURNS trigger LANGUAGE plpgsql AS $$
                    DECLARE
                        p record;
                    BEGIN
                        FOR p IN SELECT * FROM \(schema).fault_plan LOOP
                            IF current_query() LIKE p.pattern THEN
                                IF nextval('\(schema).fault_matches') <= p.times THEN
                                    IF p.action = 'hold commit reply' THEN
                                        PERFORM set_config('synchronous_commit', 'on', true);
                                        CONTINUE;
                                    END IF;
                                    IF p.action = 'terminate' THEN
                                        PERFORM pg_terminate_backend(pg_backend_pid());
                                    END IF;
                                    -- Terminating: the termination is acted on here, before the statement can go on.
                                    PERFORM pg_sleep(p.stall_seconds);
                                END IF;
                            END IF;
                        END LOOP;
                        RETURN NEW;
                    END
                    $$;
                    CREATE TRIGGER inject_fault BEFORE UPDATE ON \(schema).jobs
                        FOR EACH ROW EXECUTE FUNCTION \(schema).inject_fault();
                    """)
            }
            return injector
        }

        /// Also checks every transaction that inserted into `table` at its `COMMIT` (a deferred constraint
        /// trigger): ``Statement/commit`` then cuts a completion off after its hook wrote its rows.
        func watchCommits(of table: String) async throws {
            try await queue.withTransaction { [schema] connection in
                _ = try connection.execute(
                    """
                    CREATE CONSTRAINT TRIGGER inject_fault_at_commit AFTER INSERT ON \(table)
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(schema).inject_fault()
                    """)
            }
        }

        /// Arms `fault` for the next `times` statements matching `statement` (replacing any armed fault) and
        /// resets the count.
        func arm(_ fault: Fault, at statement: Statement, times: Int = 1) async throws {
            let (action, seconds) =
                switch fault {
                case .terminate: ("terminate", 5)
                case .stall(let seconds): ("stall", seconds)
                case .holdCommitReply: ("hold commit reply", 0)
                }
            try await queue.withTransaction { [schema] connection in
                try connection.execute("DELETE FROM \(schema).fault_plan")
                try connection.execute(
                    "INSERT INTO \(schema).fault_plan VALUES ($1, $2, $3::bigint, $4::float8)",
                    [statement.pattern, action, String(times), String(seconds)])
                // setval is not transactional: the count restarts even if this transaction did not commit.
                try connection.execute("SELECT setval('\(schema).fault_matches', 1, false)")
            }
        }

        /// How many times the armed fault fired so far.
        func fired() async throws -> Int {
            try await queue.withTransaction { [schema] connection in
                let row = try connection.execute(
                    """
                    SELECT coalesce((
                        SELECT CASE WHEN m.is_called THEN least(m.last_value, p.times) ELSE 0 END
                        FROM \(schema).fault_matches m, \(schema).fault_plan p), 0) AS fired
                    """
                ).rows.first
                return Int(try row?.int64("fired") ?? -1)
            }
        }

        /// Whether a statement matching `statement` is stalled in the server now (`pg_sleep`, seen in
        /// `pg_stat_activity`).
        func isStalled(_ statement: Statement) async throws -> Bool {
            try await queue.withTransaction { [schema] connection in
                let row = try connection.execute(
                    """
                    SELECT count(*) AS stalled FROM pg_stat_activity
                    WHERE wait_event = 'PgSleep' AND query LIKE $1 AND position($2 IN query) > 0
                        AND pid <> pg_backend_pid()
                    """, [statement.pattern, schema + "."]
                ).rows.first
                return try (row?.int64("stalled") ?? 0) > 0
            }
        }
    }
#endif
