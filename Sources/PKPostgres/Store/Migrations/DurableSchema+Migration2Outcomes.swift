#if Postgres
    /// Migration 2, part two: every outcome as one function call, fenced by the lease token (`complete_job`,
    /// `fail_job`, `cancel_running_job`, `release_job`), and what they share (`left_running`: categories released
    /// and their waiters woken, dependents settled, notifications), and the reaper's batch (`reap_expired`).
    extension DurableSchema {
        var migration2Outcomes: String {
            """
                -- Frees a job's categories and wakes, for each, the job that waited longest if it has waited too long (once all
                -- its categories are free), else the first waiting job in claim order whose categories are all free.
                CREATE FUNCTION \(name).release_categories(p_job bigint, p_starving float8) RETURNS void
                LANGUAGE plpgsql AS $$
                DECLARE
                    v_cutoff timestamptz := now() - make_interval(secs => p_starving);
                    v_freed text[];
                    v_category text;
                    v_wake bigint;
                    v_kind text;
                    v_kinds text[] := '{}';
                BEGIN
                    WITH freed AS (DELETE FROM \(name).exclusive_categories WHERE job_id = p_job RETURNING category)
                    SELECT array_agg(category) INTO v_freed FROM freed;
                    IF v_freed IS NULL THEN
                        RETURN;
                    END IF;
                    FOREACH v_category IN ARRAY v_freed LOOP
                        SELECT w.job_id INTO v_wake FROM \(name).category_waits w
                            JOIN \(name).jobs j ON j.id = w.job_id AND j.state = 'waiting'
                        WHERE w.category = v_category AND w.run_at <= v_cutoff ORDER BY w.run_at, w.job_id LIMIT 1;
                        IF v_wake IS NULL THEN
                            SELECT w.job_id INTO v_wake FROM \(name).category_waits w
                                JOIN \(name).jobs j ON j.id = w.job_id AND j.state = 'waiting'
                            WHERE w.category = v_category AND NOT EXISTS (
                                SELECT 1 FROM \(name).exclusive_categories x WHERE x.category = ANY (j.categories))
                            ORDER BY w.priority DESC, w.run_at, w.job_id LIMIT 1
                            FOR NO KEY UPDATE OF j SKIP LOCKED;
                        ELSIF EXISTS (
                            SELECT 1 FROM \(name).exclusive_categories x JOIN \(name).jobs j ON x.category = ANY (j.categories)
                            WHERE j.id = v_wake) THEN
                            v_wake := NULL;  -- it keeps the categories free for itself until all of them are
                        END IF;
                        CONTINUE WHEN v_wake IS NULL;
                        UPDATE \(name).jobs SET state = 'available' WHERE id = v_wake AND state = 'waiting' RETURNING kind INTO v_kind;
                        DELETE FROM \(name).category_waits WHERE job_id = v_wake;
                        IF v_kind IS NOT NULL THEN
                            v_kinds := v_kinds || v_kind;
                        END IF;
                        v_wake := NULL;
                    END LOOP;
                    PERFORM pg_notify('\(jobsChannel)', k) FROM (SELECT DISTINCT unnest(v_kinds) AS k) AS kinds;
                END
                $$;

                -- Tells the dependents of a finished job, transitively: each counts it as done when it succeeded (or when the
                -- dependent ignores failures) and becomes due at zero; otherwise the dependent is cancelled, and so on.
                CREATE FUNCTION \(name).settle_dependents(p_job bigint, p_succeeded boolean) RETURNS void
                LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_jobs bigint[] := ARRAY[p_job];
                    v_outcomes boolean[] := ARRAY[p_succeeded];
                    v_job bigint;
                    v_ok boolean;
                    v_kinds text[] := '{}';
                    r record;
                BEGIN
                    WHILE cardinality(v_jobs) > 0 LOOP
                        v_job := v_jobs[cardinality(v_jobs)];
                        v_ok := v_outcomes[cardinality(v_outcomes)];
                        v_jobs := v_jobs[1:cardinality(v_jobs) - 1];
                        v_outcomes := v_outcomes[1:cardinality(v_outcomes) - 1];
                        FOR r IN
                            UPDATE \(name).jobs j SET pending_dependencies = j.pending_dependencies - 1,
                                state = CASE WHEN j.pending_dependencies > 1 THEN 'blocked'
                                             WHEN j.run_at > now() THEN 'scheduled' ELSE 'available' END
                            FROM \(name).dependencies d
                            WHERE d.depends_on = v_job AND d.job_id = j.id AND j.state = 'blocked'
                                AND (v_ok OR j.ignore_failed_dependencies)
                            RETURNING j.kind, j.state
                        LOOP
                            IF r.state = 'available' THEN
                                v_kinds := v_kinds || r.kind;
                            END IF;
                        END LOOP;
                        CONTINUE WHEN v_ok;
                        -- Locked first, as every change to a final state is (FOR UPDATE): an enqueue naming one of
                        -- them as a dependency (FOR KEY SHARE) commits its edge first, so the cascade sees it.
                        PERFORM 1 FROM \(name).jobs j JOIN \(name).dependencies d ON d.job_id = j.id
                        WHERE d.depends_on = v_job AND j.state IN ('blocked', 'scheduled', 'available', 'waiting')
                            AND NOT j.ignore_failed_dependencies
                        ORDER BY j.id FOR UPDATE OF j;
                        FOR r IN
                            UPDATE \(name).jobs j SET state = 'cancelled', finished_at = now(),
                                errors = j.errors || jsonb_build_array('dependency ' || v_job || ' failed or was cancelled')
                            FROM \(name).dependencies d
                            WHERE d.depends_on = v_job AND d.job_id = j.id
                                AND j.state IN ('blocked', 'scheduled', 'available', 'waiting') AND NOT j.ignore_failed_dependencies
                            RETURNING j.id
                        LOOP
                            DELETE FROM \(name).category_waits WHERE job_id = r.id;
                            PERFORM pg_notify('\(finishedChannel)', r.id::text);
                            v_jobs := v_jobs || r.id;
                            v_outcomes := v_outcomes || false;
                        END LOOP;
                    END LOOP;
                    PERFORM pg_notify('\(jobsChannel)', k) FROM (SELECT DISTINCT unnest(v_kinds) AS k) AS kinds;
                END
                $$;

                -- What every outcome does once a job has left `running` for p_state: frees its categories; a final state settles
                -- its dependents and tells waiters, another tells workers of its kind.
                CREATE FUNCTION \(name).left_running(p_job bigint, p_state text, p_kind text, p_starving float8) RETURNS void
                LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM \(name).release_categories(p_job, p_starving);
                    IF p_state IN ('completed', 'failed', 'cancelled') THEN
                        PERFORM \(name).settle_dependents(p_job, p_state = 'completed');
                        PERFORM pg_notify('\(finishedChannel)', p_job::text);
                    ELSIF p_state = 'available' THEN
                        PERFORM pg_notify('\(jobsChannel)', p_kind);
                    END IF;
                END
                $$;

                -- The outcomes, each fenced by the lease token. Each first locks the row FOR UPDATE, as every change
                -- to a final state does, so that it waits for an enqueue under way that names the job as a dependency
                -- (FOR KEY SHARE) and then sees its edge. The token stays on the row, so that an outcome whose
                -- commit's reply was lost, sent again, finds itself recorded ('already', or the state) rather than
                -- a lost lease.
                CREATE FUNCTION \(name).complete_job(p_job bigint, p_token bigint, p_output jsonb, p_starving float8)
                RETURNS text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_state text;
                BEGIN
                    SELECT state INTO v_state FROM \(name).jobs WHERE id = p_job AND lease_token = p_token FOR UPDATE;
                    IF v_state IS NULL OR v_state NOT IN ('running', 'completed') THEN
                        RETURN 'lost';
                    ELSIF v_state = 'completed' THEN
                        RETURN 'already';
                    END IF;
                    UPDATE \(name).jobs SET state = 'completed', output = p_output, finished_at = now(),
                        lease_owner = NULL, lease_expires_at = NULL
                    WHERE id = p_job;
                    PERFORM \(name).left_running(p_job, 'completed', '', p_starving);
                    RETURN 'completed';
                END
                $$;

                CREATE FUNCTION \(name).fail_job(
                    p_job bigint, p_token bigint, p_error text, p_delay float8, p_permanent boolean, p_starving float8
                ) RETURNS text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_state text;
                    v_kind text;
                BEGIN
                    SELECT state INTO v_state FROM \(name).jobs WHERE id = p_job AND lease_token = p_token FOR UPDATE;
                    IF v_state IS NULL OR v_state <> 'running' THEN
                        RETURN v_state;  -- NULL: the lease is lost; a state: recorded already
                    END IF;
                    UPDATE \(name).jobs SET
                        state = CASE WHEN cancel_requested THEN 'cancelled'
                                     WHEN attempt < max_attempts AND NOT p_permanent
                                         THEN CASE WHEN p_delay > 0 THEN 'scheduled' ELSE 'available' END
                                     ELSE 'failed' END,
                        run_at = CASE WHEN NOT cancel_requested AND attempt < max_attempts AND NOT p_permanent
                                      THEN now() + make_interval(secs => p_delay) ELSE run_at END,
                        finished_at = CASE WHEN NOT cancel_requested AND attempt < max_attempts AND NOT p_permanent
                                           THEN NULL ELSE now() END,
                        errors = errors || jsonb_build_array(p_error),
                        lease_owner = NULL, lease_expires_at = NULL
                    WHERE id = p_job
                    RETURNING state, kind INTO v_state, v_kind;
                    PERFORM \(name).left_running(p_job, v_state, v_kind, p_starving);
                    RETURN v_state;
                END
                $$;

                CREATE FUNCTION \(name).cancel_running_job(p_job bigint, p_token bigint, p_reason text, p_starving float8)
                RETURNS boolean LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_state text;
                BEGIN
                    SELECT state INTO v_state FROM \(name).jobs WHERE id = p_job AND lease_token = p_token FOR UPDATE;
                    IF v_state IS NULL OR v_state <> 'running' THEN
                        RETURN coalesce(v_state = 'cancelled', false);
                    END IF;
                    UPDATE \(name).jobs SET state = 'cancelled', finished_at = now(),
                        errors = errors || jsonb_build_array(p_reason), lease_owner = NULL, lease_expires_at = NULL
                    WHERE id = p_job;
                    PERFORM \(name).left_running(p_job, 'cancelled', '', p_starving);
                    RETURN true;
                END
                $$;

                -- Gives a running job back without spending its attempt, or records it cancelled when that was
                -- requested.
                CREATE FUNCTION \(name).release_job(p_job bigint, p_token bigint, p_starving float8)
                RETURNS boolean LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_state text;
                    v_kind text;
                BEGIN
                    SELECT state INTO v_state FROM \(name).jobs WHERE id = p_job AND lease_token = p_token FOR UPDATE;
                    IF v_state IS NULL OR v_state <> 'running' THEN
                        RETURN coalesce(v_state IN ('available', 'cancelled'), false);
                    END IF;
                    UPDATE \(name).jobs SET
                        state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'available' END,
                        attempt = CASE WHEN cancel_requested THEN attempt ELSE attempt - 1 END,
                        finished_at = CASE WHEN cancel_requested THEN now() END,
                        errors = CASE WHEN cancel_requested THEN errors || '["cancelled by request"]'::jsonb ELSE errors END,
                        lease_owner = NULL, lease_expires_at = NULL, started_at = NULL
                    WHERE id = p_job
                    RETURNING state, kind INTO v_state, v_kind;
                    PERFORM \(name).left_running(p_job, v_state, v_kind, p_starving);
                    RETURN true;
                END
                $$;

                -- Requeues (or fails, when its attempts are spent, or cancels, when that was requested) up to p_limit running
                -- jobs whose leases expired; skips rows locked by an outcome being recorded. Returns how many.
                CREATE FUNCTION \(name).reap_expired(p_limit integer, p_starving float8) RETURNS integer
                LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
                DECLARE
                    v_count integer := 0;
                    r record;
                BEGIN
                    FOR r IN
                        UPDATE \(name).jobs j SET
                            state = CASE WHEN j.cancel_requested THEN 'cancelled'
                                         WHEN j.attempt < j.max_attempts THEN 'available' ELSE 'failed' END,
                            finished_at = CASE WHEN NOT j.cancel_requested AND j.attempt < j.max_attempts THEN NULL ELSE now() END,
                            errors = j.errors || jsonb_build_array('the lease of ' || coalesce(j.lease_owner, 'a worker')
                                || ' expired during attempt ' || j.attempt),
                            lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                        WHERE j.id IN (
                            SELECT e.id FROM \(name).jobs e WHERE e.state = 'running' AND e.lease_expires_at < now()
                            ORDER BY e.lease_expires_at LIMIT p_limit FOR UPDATE SKIP LOCKED)
                        RETURNING j.id, j.state, j.kind
                    LOOP
                        PERFORM \(name).left_running(r.id, r.state, r.kind, p_starving);
                        v_count := v_count + 1;
                    END LOOP;
                    RETURN v_count;
                END
                $$;
            """
        }
    }
#endif
