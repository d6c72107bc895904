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

                -- Every function a client calls plans its statements once, for any arguments (force_generic_plan): a
                -- fresh plan at each call cost more than running the statements, and more the larger the table (W22).
                -- Claims up to p_limit due jobs of p_kinds for p_owner: jobs that have waited longer than p_starving seconds
                -- first (oldest first), then by priority, start time and id. Returns them in that order.
                CREATE FUNCTION \(name).claim_jobs(
                    p_kinds text[], p_limit integer, p_owner text, p_lease float8, p_starving float8, p_skip bigint[]
                ) RETURNS TABLE (
                    id bigint, kind text, attempt integer, max_attempts integer, lease_token bigint, graph_id bigint,
                    retry text, input_from bigint, input text, timeout_seconds float8
                ) LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                #variable_conflict use_column
                DECLARE
                    v_cutoff timestamptz := now() - make_interval(secs => p_starving);
                    v_due text[];
                    v_reserved_categories text[];
                    v_reserved_run_at timestamptz[];
                    v_reserved_jobs bigint[];
                    v_ids bigint[] := '{}';
                    v_tokens bigint[] := '{}';
                    v_seen bigint[] := '{}';
                    v_token bigint;
                    v_parked boolean;
                    v_round integer := 0;
                    r record;
                BEGIN
                    -- Scheduled jobs whose time has come become available (whoever claims first; SKIP LOCKED never waits).
                    WITH due AS (
                        UPDATE \(name).jobs j SET state = 'available'
                        WHERE j.id IN (
                            SELECT s.id FROM \(name).jobs s WHERE s.state = 'scheduled' AND s.run_at <= now()
                            ORDER BY s.run_at, s.id LIMIT 1000 FOR NO KEY UPDATE SKIP LOCKED)
                        RETURNING j.kind)
                    SELECT array_agg(DISTINCT due.kind) INTO v_due FROM due;
                    IF v_due IS NOT NULL THEN
                        PERFORM pg_notify('\(jobsChannel)', k) FROM unnest(v_due) AS k;
                    END IF;
                    -- Categories kept for jobs that have waited too long: younger jobs needing them wait behind them.
                    SELECT coalesce(array_agg(w.category), '{}'), coalesce(array_agg(w.run_at), '{}'),
                        coalesce(array_agg(w.job_id), '{}')
                    INTO v_reserved_categories, v_reserved_run_at, v_reserved_jobs
                    FROM (SELECT category, run_at, job_id FROM \(name).category_waits WHERE run_at <= v_cutoff
                          ORDER BY run_at, job_id LIMIT 200) w;
                    LOOP
                        v_round := v_round + 1;
                        v_parked := false;
                        FOR r IN
                            SELECT c.id, c.categories, c.starving, c.run_at FROM (
                                SELECT a.id, a.categories, true AS starving, a.priority, a.run_at
                                FROM unnest(p_kinds) AS k(kind) CROSS JOIN LATERAL (
                                    SELECT j.id, j.categories, j.priority, j.run_at FROM \(name).jobs j
                                    WHERE j.state = 'available' AND j.kind = k.kind AND j.run_at <= v_cutoff
                                        AND j.id <> ALL (p_skip)
                                    ORDER BY j.run_at, j.id LIMIT p_limit FOR NO KEY UPDATE SKIP LOCKED) a
                                UNION ALL
                                SELECT b.id, b.categories, false, b.priority, b.run_at
                                FROM unnest(p_kinds) AS k(kind) CROSS JOIN LATERAL (
                                    SELECT j.id, j.categories, j.priority, j.run_at FROM \(name).jobs j
                                    WHERE j.state = 'available' AND j.kind = k.kind AND j.run_at <= now()
                                        AND j.id <> ALL (p_skip)
                                    ORDER BY j.priority DESC, j.run_at, j.id LIMIT p_limit FOR NO KEY UPDATE SKIP LOCKED) b
                            ) c
                            ORDER BY c.starving DESC, CASE WHEN c.starving THEN c.run_at END, CASE WHEN c.starving THEN c.id END,
                                c.priority DESC, c.run_at, c.id
                        LOOP
                            EXIT WHEN cardinality(v_ids) >= p_limit;
                            CONTINUE WHEN r.id = ANY (v_seen);
                            v_seen := v_seen || r.id;
                            v_token := nextval('\(name).lease_tokens');
                            IF cardinality(r.categories) = 0
                                OR \(name).take_categories(
                                    r.id, v_token, r.categories, r.run_at, v_reserved_categories, v_reserved_run_at,
                                    v_reserved_jobs) THEN
                                v_ids := v_ids || r.id;
                                v_tokens := v_tokens || v_token;
                            ELSE
                                v_parked := true;
                                -- Parked after waiting too long: younger jobs of this claim leave its categories.
                                IF r.starving THEN
                                    v_reserved_categories := v_reserved_categories || r.categories;
                                    v_reserved_run_at := v_reserved_run_at || array_fill(r.run_at, ARRAY[cardinality(r.categories)]);
                                    v_reserved_jobs := v_reserved_jobs || array_fill(r.id, ARRAY[cardinality(r.categories)]);
                                END IF;
                            END IF;
                        END LOOP;
                        EXIT WHEN NOT v_parked OR cardinality(v_ids) >= p_limit OR v_round >= 4;
                    END LOOP;
                    IF cardinality(v_ids) = 0 THEN
                        RETURN;
                    END IF;
                    RETURN QUERY
                    WITH claimed AS (
                        UPDATE \(name).jobs j
                        SET state = 'running', attempt = j.attempt + 1, lease_owner = p_owner, lease_token = t.token,
                            lease_expires_at = now() + make_interval(secs => p_lease), started_at = now()
                        FROM unnest(v_ids, v_tokens) WITH ORDINALITY AS t(id, token, position)
                        WHERE j.id = t.id
                        RETURNING j.id, j.kind, j.attempt, j.max_attempts, j.lease_token, j.graph_id, j.retry::text AS retry,
                            j.input_from, j.input, j.timeout_seconds, t.position)
                    SELECT c.id, c.kind, c.attempt, c.max_attempts, c.lease_token, c.graph_id, c.retry, c.input_from,
                        CASE WHEN c.input_from IS NULL THEN c.input::text
                             ELSE (SELECT o.output::text FROM \(name).jobs o WHERE o.id = c.input_from) END,
                        c.timeout_seconds
                    FROM claimed c ORDER BY c.position;
                END
                $$;
            """
        }
    }
#endif
