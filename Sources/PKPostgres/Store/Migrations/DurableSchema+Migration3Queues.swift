#if Postgres
    /// Migration 3: named queues (a job's `queue`, claims indexed by queue and kind, queues paused fleet-wide) and
    /// each attempt's history (`attempts`: which worker ran it, when, and how it ended).
    extension DurableSchema {
        var migration3Queues: String {
            """
                ALTER TABLE \(jobs) ADD COLUMN queue text NOT NULL DEFAULT 'default';
                ALTER TABLE \(jobs) ADD COLUMN snoozes integer NOT NULL DEFAULT 0;
                -- For a job a periodic schedule enqueued: the time of its period.
                ALTER TABLE \(jobs) ADD COLUMN period_at timestamptz;

                -- Each periodic job's last period enqueued (or, before its first, the time it was first seen).
                CREATE TABLE \(name).periodic (
                    name text PRIMARY KEY,
                    last_period_at timestamptz NOT NULL,
                    changed_at timestamptz NOT NULL DEFAULT now()
                );
                DROP INDEX \(name).jobs_claim;
                DROP INDEX \(name).jobs_claim_age;
                CREATE INDEX jobs_claim ON \(jobs) (queue, kind, priority DESC, run_at, id) WHERE state = 'available';
                CREATE INDEX jobs_claim_age ON \(jobs) (queue, kind, run_at, id) WHERE state = 'available';
                CREATE INDEX jobs_listing ON \(jobs) (state, queue, kind, id);

                -- A queue has a row once it was paused or resumed; a queue without one runs.
                CREATE TABLE \(name).queues (
                    name text PRIMARY KEY,
                    paused boolean NOT NULL DEFAULT false,
                    -- The most jobs of the queue running at once across the fleet; NULL for no limit.
                    max_running integer CHECK (max_running >= 0),
                    changed_at timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX jobs_running_queue ON \(jobs) (queue) WHERE state = 'running';

                -- One row per attempt that started: written by the claim, finished by the outcome, removed when the
                -- attempt is given back (it did not count).
                CREATE TABLE \(name).attempts (
                    job_id bigint NOT NULL REFERENCES \(jobs) (id) ON DELETE CASCADE,
                    attempt integer NOT NULL,
                    worker text NOT NULL,
                    started_at timestamptz NOT NULL,
                    finished_at timestamptz,
                    outcome text CHECK (outcome IN ('completed', 'failed', 'cancelled')),
                    error text,
                    PRIMARY KEY (job_id, attempt)
                );

                -- What every outcome does once a job has left `running` for p_state: records how its attempt ended
                -- (or forgets it, when it was given back: its number was taken back), frees its categories; a final
                -- state settles its dependents and tells waiters, another tells workers of its kind.
                CREATE OR REPLACE FUNCTION \(name).left_running(p_job bigint, p_state text, p_kind text, p_starving float8)
                RETURNS void LANGUAGE plpgsql AS $$
                DECLARE
                    v_attempt integer;
                    v_error text;
                BEGIN
                    SELECT attempt, errors ->> -1 INTO v_attempt, v_error FROM \(jobs) WHERE id = p_job;
                    DELETE FROM \(name).attempts WHERE job_id = p_job AND attempt > v_attempt;
                    UPDATE \(name).attempts SET finished_at = now(),
                        outcome = CASE p_state WHEN 'completed' THEN 'completed' WHEN 'cancelled' THEN 'cancelled'
                                  ELSE 'failed' END,
                        error = CASE WHEN p_state = 'completed' THEN NULL ELSE v_error END
                    WHERE job_id = p_job AND attempt = v_attempt AND finished_at IS NULL;
                    PERFORM \(name).release_categories(p_job, p_starving);
                    IF p_state IN ('completed', 'failed', 'cancelled') THEN
                        PERFORM \(name).settle_dependents(p_job, p_state = 'completed');
                        PERFORM pg_notify('\(finishedChannel)', p_job::text);
                    ELSIF p_state = 'available' THEN
                        PERFORM pg_notify('\(jobsChannel)', p_kind);
                    END IF;
                END
                $$;

                -- A running job asks to run again after p_delay seconds without spending its attempt (its number is
                -- taken back), at most p_most times; past that it fails for good. Fenced by the lease token like
                -- every outcome; returns the new state, or NULL when the lease is lost.
                CREATE FUNCTION \(name).snooze_job(
                    p_job bigint, p_token bigint, p_delay float8, p_most integer, p_starving float8
                ) RETURNS text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_state text;
                    v_kind text;
                BEGIN
                    SELECT state INTO v_state FROM \(jobs) WHERE id = p_job AND lease_token = p_token FOR UPDATE;
                    IF v_state IS NULL OR v_state <> 'running' THEN
                        RETURN v_state;
                    END IF;
                    UPDATE \(jobs) SET
                        state = CASE WHEN cancel_requested THEN 'cancelled' WHEN snoozes >= p_most THEN 'failed'
                                     WHEN p_delay > 0 THEN 'scheduled' ELSE 'available' END,
                        attempt = CASE WHEN cancel_requested OR snoozes >= p_most THEN attempt ELSE attempt - 1 END,
                        snoozes = snoozes + 1,
                        run_at = CASE WHEN cancel_requested OR snoozes >= p_most THEN run_at
                                      ELSE now() + make_interval(secs => p_delay) END,
                        finished_at = CASE WHEN cancel_requested OR snoozes >= p_most THEN now() END,
                        errors = CASE WHEN cancel_requested THEN errors || '["cancelled by request"]'::jsonb
                                      WHEN snoozes >= p_most THEN errors || jsonb_build_array(
                                          'attempt ' || attempt || ': snoozed more than ' || p_most || ' times')
                                      ELSE errors END,
                        lease_owner = NULL, lease_expires_at = NULL,
                        started_at = CASE WHEN cancel_requested OR snoozes >= p_most THEN started_at END
                    WHERE id = p_job
                    RETURNING state, kind INTO v_state, v_kind;
                    PERFORM \(name).left_running(p_job, v_state, v_kind, p_starving);
                    RETURN v_state;
                END
                $$;

                DROP FUNCTION \(name).claim_jobs(text[], integer, text, float8, float8, bigint[]);
            \(claimJobsFunction(queued: true))
            """
        }
    }
#endif
