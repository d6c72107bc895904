#if Postgres
    /// The claim function, `claim_jobs`, as migration 2 made it (`queued: false`) and as migration 3 makes it: taking
    /// the named queues to claim from (leaving out paused ones) and recording each attempt it starts.
    extension DurableSchema {
        func claimJobsFunction(queued: Bool) -> String {
            """
                -- Every function a client calls plans its statements once, for any arguments (force_generic_plan): a
                -- fresh plan at each call cost more than running the statements, and more the larger the table (W22).\(queued ? jitNote : "")
                -- Claims up to p_limit due jobs of p_kinds\(queued ? " in p_queues (not paused)" : "") for p_owner: jobs that have waited longer than p_starving seconds
                -- first (oldest first), then by priority, start time and id. Returns them in that order.
                CREATE FUNCTION \(name).claim_jobs(
                    \(queued ? "p_queues text[], p_queue_caps integer[], " : "")p_kinds text[], p_limit integer, p_owner text, p_lease float8, p_starving float8, p_skip bigint[]
                ) RETURNS TABLE (
                    id bigint, kind text, attempt integer, max_attempts integer, lease_token bigint, graph_id bigint,
                    retry text, input_from bigint, input text, timeout_seconds float8\(queued ? ", period_at float8, queue text" : "")
                ) LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan\(queued ? " SET jit = off" : "") AS $$
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
                    r record;\(queued ? queuedDeclarations : "")
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
                    \(queued ? pausedQueuesLeftOut : "")LOOP
                        v_round := v_round + 1;
                        v_parked := false;
                        FOR r IN
                            SELECT c.id, c.categories, c.starving, c.run_at\(queued ? ", c.queue" : "") FROM (
                                SELECT a.id, a.categories, true AS starving, a.priority, a.run_at\(queued ? ", a.queue" : "")
                                FROM \(queued ? "unnest(v_queues) AS q(queue) CROSS JOIN " : "")unnest(p_kinds) AS k(kind) CROSS JOIN LATERAL (
                                    SELECT j.id, j.categories, j.priority, j.run_at\(queued ? ", j.queue" : "") FROM \(name).jobs j
                                    WHERE j.state = 'available' AND \(queued ? "j.queue = q.queue AND " : "")j.kind = k.kind AND j.run_at <= v_cutoff
                                        AND j.id <> ALL (p_skip)
                                    ORDER BY j.run_at, j.id LIMIT p_limit FOR NO KEY UPDATE SKIP LOCKED) a
                                UNION ALL
                                SELECT b.id, b.categories, false, b.priority, b.run_at\(queued ? ", b.queue" : "")
                                FROM \(queued ? "unnest(v_queues) AS q(queue) CROSS JOIN " : "")unnest(p_kinds) AS k(kind) CROSS JOIN LATERAL (
                                    SELECT j.id, j.categories, j.priority, j.run_at\(queued ? ", j.queue" : "") FROM \(name).jobs j
                                    WHERE j.state = 'available' AND \(queued ? "j.queue = q.queue AND " : "")j.kind = k.kind AND j.run_at <= now()
                                        AND j.id <> ALL (p_skip)
                                    ORDER BY j.priority DESC, j.run_at, j.id LIMIT p_limit FOR NO KEY UPDATE SKIP LOCKED) b
                            ) c
                            ORDER BY c.starving DESC, CASE WHEN c.starving THEN c.run_at END, CASE WHEN c.starving THEN c.id END,
                                c.priority DESC, c.run_at, c.id
                        LOOP
                            EXIT WHEN cardinality(v_ids) >= p_limit;
                            CONTINUE WHEN r.id = ANY (v_seen);\(queued ? capReached : "")
                            v_seen := v_seen || r.id;
                            v_token := nextval('\(name).lease_tokens');
                            IF cardinality(r.categories) = 0
                                OR \(name).take_categories(
                                    r.id, v_token, r.categories, r.run_at, v_reserved_categories, v_reserved_run_at,
                                    v_reserved_jobs) THEN
                                v_ids := v_ids || r.id;
                                v_tokens := v_tokens || v_token;\(queued ? capTaken : "")
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
                            j.input_from, j.input, j.timeout_seconds, t.position\(queued ? ", j.period_at, j.queue" : ""))\(queued ? attemptsRecorded : "")
                    SELECT c.id, c.kind, c.attempt, c.max_attempts, c.lease_token, c.graph_id, c.retry, c.input_from,
                        CASE WHEN c.input_from IS NULL THEN c.input::text
                             ELSE (SELECT o.output::text FROM \(name).jobs o WHERE o.id = c.input_from) END,
                        c.timeout_seconds\(queued ? ", extract(epoch FROM c.period_at)::float8, c.queue" : "")
                    FROM claimed c ORDER BY c.position;
                END
                $$;
            """
        }

        /// Why the queued claim turns JIT compilation off.
        private var jitNote: String {
            """

                -- Without JIT: the generic plan's estimate for the candidates (queues × kinds, a limit not known in
                -- advance) passes jit_above_cost, and compiling took 25 ms of a claim that runs in under one (W22).
            """
        }

        /// The queued claim's variables: the queues not paused, and each capped queue's cap and jobs taken.
        private var queuedDeclarations: String {
            """

                    v_queues text[];
                    v_cap_queues text[] := '{}';
                    v_caps integer[] := '{}';
                    v_taken integer[] := '{}';
                    v_position integer;
            """
        }

        /// Leaves paused queues out of `p_queues` (into `v_queues`), then gathers each queue's cap: the fleet's
        /// (`queues.max_running`, less the jobs running in it, counted under the queue row's lock, so that claims
        /// of a limited queue take turns) and this worker's (`p_queue_caps`, aligned with `p_queues`), the lower.
        private var pausedQueuesLeftOut: String {
            """
            SELECT coalesce(array_agg(q), '{}') INTO v_queues FROM unnest(p_queues) AS q
                    WHERE q NOT IN (SELECT p.name FROM \(name).queues p WHERE p.paused);
                    IF cardinality(v_queues) = 0 THEN
                        RETURN;
                    END IF;
                    FOR r IN
                        SELECT p.name, p.max_running FROM \(name).queues p
                        WHERE p.name = ANY (v_queues) AND p.max_running IS NOT NULL ORDER BY p.name FOR UPDATE
                    LOOP
                        v_cap_queues := v_cap_queues || r.name;
                        v_caps := v_caps || greatest(0, r.max_running - (
                            SELECT count(*) FROM \(name).jobs x WHERE x.state = 'running' AND x.queue = r.name))::integer;
                    END LOOP;
                    FOR v_i IN 1..coalesce(cardinality(p_queues), 0) LOOP
                        CONTINUE WHEN p_queue_caps[v_i] IS NULL;
                        v_position := array_position(v_cap_queues, p_queues[v_i]);
                        IF v_position IS NULL THEN
                            v_cap_queues := v_cap_queues || p_queues[v_i];
                            v_caps := v_caps || p_queue_caps[v_i];
                        ELSE
                            v_caps[v_position] := least(v_caps[v_position], p_queue_caps[v_i]);
                        END IF;
                    END LOOP;
                    IF cardinality(v_cap_queues) > 0 THEN
                        v_taken := array_fill(0, ARRAY[cardinality(v_cap_queues)]);
                    END IF;

            """
        }

        /// Skips a candidate whose queue has reached its cap.
        private var capReached: String {
            """

                            v_position := array_position(v_cap_queues, r.queue);
                            CONTINUE WHEN v_position IS NOT NULL AND v_taken[v_position] >= v_caps[v_position];
            """
        }

        /// Counts a job taken against its queue's cap.
        private var capTaken: String {
            """

                                IF v_position IS NOT NULL THEN
                                    v_taken[v_position] := v_taken[v_position] + 1;
                                END IF;
            """
        }

        /// Records the attempts a claim starts (one row each in `attempts`), as a statement of the claim's query.
        private var attemptsRecorded: String {
            """
            ,
                    recorded AS (
                        INSERT INTO \(name).attempts (job_id, attempt, worker, started_at)
                        SELECT c.id, c.attempt, p_owner, now() FROM claimed c
                        ON CONFLICT (job_id, attempt) DO UPDATE SET worker = EXCLUDED.worker,
                            started_at = EXCLUDED.started_at, finished_at = NULL, outcome = NULL, error = NULL)
            """
        }
    }
#endif
