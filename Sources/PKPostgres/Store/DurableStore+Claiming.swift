#if Postgres
    import Foundation

    /// Claiming available jobs for a worker.
    extension DurableStore {
        // MARK: - Claim

        /// Claims up to `limit` available jobs of `kinds` for `owner`, with leases of `lease` seconds. Jobs with
        /// exclusive categories are claimed only when all their categories are free.
        ///
        /// The claim is one statement (atomic without a transaction: one round trip). A claimed job with categories
        /// then takes them in a transaction of its own, fenced by its new token, or is given back when another job
        /// holds one: until then it runs nowhere, so two jobs sharing a category never both run.
        func claim(kinds: [String], limit: Int, owner: String, lease: TimeInterval, _ connection: PostgresConnection)
            throws -> [ClaimedJob]
        {
            guard limit > 0, !kinds.isEmpty else { return [] }
            do {  // no transaction: one statement
                let rows = try connection.execute(
                    """
                    WITH next AS (
                        SELECT id FROM \(schema.jobs)
                        WHERE state = 'available' AND run_at <= now() AND kind = ANY($1::text[])
                            AND (cardinality(categories) = 0 OR NOT categories &&
                                coalesce((SELECT array_agg(category) FROM \(schema.exclusive)), '{}'::text[]))
                        ORDER BY priority DESC, run_at, id
                        LIMIT $2::integer
                        FOR UPDATE SKIP LOCKED),
                    claimed AS (
                        UPDATE \(schema.jobs) j
                        SET state = 'running', attempt = j.attempt + 1, lease_owner = $3,
                            lease_token = nextval('\(schema.name).lease_tokens'),
                            lease_expires_at = now() + make_interval(secs => $4::float8), started_at = now()
                        FROM next WHERE j.id = next.id
                        RETURNING j.id, j.kind, j.attempt, j.max_attempts, j.lease_token, j.categories, j.graph_id,
                            j.retry::text AS retry, j.input_from, j.priority, j.run_at,
                            CASE WHEN j.input_from IS NULL THEN j.input::text
                                 ELSE (SELECT o.output::text FROM \(schema.jobs) o WHERE o.id = j.input_from)
                            END AS input)
                    -- UPDATE ... RETURNING keeps no order (a hash join returns table order): launch in claim order.
                    SELECT * FROM claimed ORDER BY priority DESC, run_at, id
                    """,
                    [DurableSchema.textArray(kinds), String(limit), owner, String(lease)]
                ).rows
                var claimed: [ClaimedJob] = []
                // Jobs of one batch mostly share a policy: decode each distinct one once.
                var policies: [String: DurableRetryPolicy] = [:]
                let decoder = JSONDecoder()
                for row in rows {
                    let id = try row.int64("id")
                    let token = try row.int64("lease_token")
                    let categories = DurableSchema.parseTextArray(row["categories"])
                    if try !categories.isEmpty && !takeCategories(categories, id: id, token: token, connection) {
                        continue
                    }
                    let policyText = row["retry"] ?? ""
                    let retry: DurableRetryPolicy
                    if let known = policies[policyText] {
                        retry = known
                    } else {
                        retry = try decoder.decode(DurableRetryPolicy.self, from: Data(policyText.utf8))
                        policies[policyText] = retry
                    }
                    claimed.append(
                        ClaimedJob(
                            id: JobID(rawValue: id), kind: row["kind"] ?? "", attempt: Int(try row.int64("attempt")),
                            maxAttempts: Int(try row.int64("max_attempts")), token: token,
                            graph: row["graph_id"].flatMap(Int64.init).map(GraphID.init(rawValue:)), retry: retry,
                            input: row["input"], inputFrom: row["input_from"].flatMap(Int64.init).map(JobID.init)))
                }
                return claimed
            }
        }

        /// Takes a claimed job's exclusive categories, or gives the job back (fenced by `token`) when another job
        /// holds one of them; runs its own transaction. Returns whether it took them.
        private func takeCategories(_ categories: [String], id: Int64, token: Int64, _ connection: PostgresConnection)
            throws -> Bool
        {
            try connection.transaction { connection in
                let taken = try connection.execute(
                    """
                    INSERT INTO \(schema.exclusive) (category, job_id, lease_token)
                    SELECT unnest($1::text[]), $2::bigint, $3::bigint ON CONFLICT DO NOTHING
                    """, [DurableSchema.textArray(categories), String(id), String(token)])
                guard taken.affectedRows < categories.count else { return true }
                // Another job holds one of them (claimed concurrently, or earlier in this batch).
                try connection.execute(
                    "DELETE FROM \(schema.exclusive) WHERE job_id = $1::bigint AND lease_token = $2::bigint",
                    [String(id), String(token)])
                try connection.execute(
                    """
                    UPDATE \(schema.jobs) SET state = 'available', attempt = attempt - 1, lease_owner = NULL,
                        lease_token = NULL, lease_expires_at = NULL, started_at = NULL
                    WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                    """, [String(id), String(token)])
                return false
            }
        }
    }
#endif
