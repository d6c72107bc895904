#if Postgres
    /// Migration 2, part one: the `scheduled` and `waiting` states, per-kind claim indexes, per-job timeouts,
    /// waiting for exclusive categories, and the claim as one function (`claim_jobs`): one round trip that
    /// takes a batch of due jobs together with their categories, or parks a job whose category is held.
    extension DurableSchema {
        var migration2Claims: String {
            """
                ALTER TABLE \(name).jobs DROP CONSTRAINT jobs_state_check;
                ALTER TABLE \(name).jobs ADD CONSTRAINT jobs_state_check CHECK (state IN
                    ('blocked', 'scheduled', 'available', 'waiting', 'running', 'completed', 'failed', 'cancelled'));
                ALTER TABLE \(name).jobs ADD COLUMN timeout_seconds float8;
                UPDATE \(name).jobs SET state = 'scheduled' WHERE state = 'available' AND run_at > now();
                DROP INDEX \(name).jobs_available;
                CREATE INDEX jobs_claim ON \(name).jobs (kind, priority DESC, run_at, id) WHERE state = 'available';
                CREATE INDEX jobs_claim_age ON \(name).jobs (kind, run_at, id) WHERE state = 'available';
                CREATE INDEX jobs_scheduled ON \(name).jobs (run_at, id) WHERE state = 'scheduled';
                CREATE INDEX jobs_waiting ON \(name).jobs (run_at, id) WHERE state = 'waiting';
                CREATE TABLE \(name).category_waits (
                    category text NOT NULL,
                    job_id bigint NOT NULL REFERENCES \(name).jobs (id) ON DELETE CASCADE,
                    priority integer NOT NULL,
                    run_at timestamptz NOT NULL,
                    PRIMARY KEY (category, job_id)
                );
                CREATE INDEX category_waits_order ON \(name).category_waits (category, priority DESC, run_at, job_id);
                CREATE INDEX category_waits_age ON \(name).category_waits (run_at, category);
                CREATE INDEX category_waits_job ON \(name).category_waits (job_id);

                -- A job that cannot take its categories waits, out of the claim's way, until one is released.
                CREATE FUNCTION \(name).park(p_job bigint) RETURNS void LANGUAGE sql AS $$
                    UPDATE \(name).jobs SET state = 'waiting' WHERE id = p_job AND state = 'available';
                    INSERT INTO \(name).category_waits (category, job_id, priority, run_at)
                    SELECT unnest(categories), id, priority, run_at FROM \(name).jobs WHERE id = p_job AND state = 'waiting'
                    ON CONFLICT DO NOTHING;
                $$;

                -- Takes every category of a job being claimed, or none; parks the job when one is held, or kept for an
                -- older job that has waited too long (p_reserved_*: a category, and the start time and id of the job
                -- it is kept for).
                CREATE FUNCTION \(name).take_categories(
                    p_job bigint, p_token bigint, p_categories text[], p_run_at timestamptz,
                    p_reserved_categories text[], p_reserved_run_at timestamptz[], p_reserved_jobs bigint[]
                ) RETURNS boolean LANGUAGE plpgsql AS $$
                DECLARE
                    v_taken integer;
                    v_held integer;
                BEGIN
                    IF EXISTS (
                        SELECT 1 FROM unnest(p_reserved_categories, p_reserved_run_at, p_reserved_jobs) AS r(c, at, job)
                        WHERE r.c = ANY (p_categories) AND (r.at, r.job) < (p_run_at, p_job)) THEN
                        PERFORM \(name).park(p_job);
                        RETURN false;
                    END IF;
                    FOR v_try IN 1..2 LOOP
                        INSERT INTO \(name).exclusive_categories (category, job_id, lease_token)
                        SELECT c, p_job, p_token FROM unnest(p_categories) AS c ON CONFLICT DO NOTHING;
                        GET DIAGNOSTICS v_taken = ROW_COUNT;
                        IF v_taken = cardinality(p_categories) THEN
                            RETURN true;
                        END IF;
                        DELETE FROM \(name).exclusive_categories WHERE job_id = p_job AND lease_token = p_token;
                        -- Hold the holders until this transaction ends: a release either committed before (the category is
                        -- free now: try again) or waits for the park below and then wakes the job.
                        PERFORM 1 FROM \(name).exclusive_categories WHERE category = ANY (p_categories) FOR SHARE;
                        GET DIAGNOSTICS v_held = ROW_COUNT;
                        IF v_held > 0 THEN
                            PERFORM \(name).park(p_job);
                            RETURN false;
                        END IF;
                    END LOOP;
                    PERFORM \(name).park(p_job);
                    RETURN false;
                END
                $$;

                \(claimJobsFunction(queued: false))
            """
        }
    }
#endif
