#if Postgres
    /// Migration 4: uniqueness among chosen states (a job's `unique_states`), what a running job records about
    /// itself (its `metadata` and the `progress` of its latest attempt), the workers seen (`workers`, for the
    /// dashboard) and each periodic job's schedule and next period.
    extension DurableSchema {
        var migration4Uniqueness: String {
            """
                -- Which finished states keep a job's unique key taken, as bits (completed 1, failed 2, cancelled 4);
                -- NULL for all of them (the global `uniqueKey` option). An unfinished job always keeps its key.
                ALTER TABLE \(jobs) ADD COLUMN unique_states integer;
                ALTER TABLE \(jobs) ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
                ALTER TABLE \(jobs) ADD COLUMN progress float8;
                ALTER TABLE \(jobs) ADD COLUMN progress_message text;
                -- The attempt the progress was reported by: a later attempt's progress starts afresh.
                ALTER TABLE \(jobs) ADD COLUMN progress_attempt integer;

                -- Whether a job in p_state keeps its unique key taken, given its unique_states bits.
                CREATE FUNCTION \(name).keeps_unique_key(p_states integer, p_state text) RETURNS boolean
                LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
                    SELECT CASE p_state
                        WHEN 'completed' THEN coalesce(p_states, 7) & 1 <> 0
                        WHEN 'failed' THEN coalesce(p_states, 7) & 2 <> 0
                        WHEN 'cancelled' THEN coalesce(p_states, 7) & 4 <> 0
                        ELSE true END
                $$;
                CREATE UNIQUE INDEX jobs_unique ON \(jobs) (unique_key)
                    WHERE unique_key IS NOT NULL AND \(name).keeps_unique_key(unique_states, state);
                ALTER TABLE \(jobs) DROP CONSTRAINT jobs_unique_key_key;

                -- Each running worker's row, written by its heartbeat and deleted when it stops (a row whose
                -- last_seen_at is old is a worker that died; the elected worker deletes it after an hour).
                CREATE TABLE \(name).workers (
                    name text PRIMARY KEY,
                    queues text[] NOT NULL,
                    concurrency integer NOT NULL,
                    lease_seconds float8 NOT NULL,
                    started_at timestamptz NOT NULL DEFAULT now(),
                    last_seen_at timestamptz NOT NULL DEFAULT now()
                );
                ALTER TABLE \(name).periodic ADD COLUMN kind text;
                ALTER TABLE \(name).periodic ADD COLUMN schedule text;
                ALTER TABLE \(name).periodic ADD COLUMN next_period_at timestamptz;
            """
        }

        /// The conflict target of an insert under a unique key: the partial index of migration 4.
        var uniqueConflictTarget: String {
            "(unique_key) WHERE unique_key IS NOT NULL AND \(name).keeps_unique_key(unique_states, state)"
        }
    }
#endif
