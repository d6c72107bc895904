#if Postgres
    import Foundation

    /// Claiming due jobs for a worker.
    extension DurableStore {
        /// What one claim returned: the jobs this build can run, and those it cannot read (claimed all the same:
        /// the caller gives them back without spending their attempt).
        package struct Claim: Sendable {
            package var jobs: [ClaimedJob] = []
            var unreadable: [(job: ClaimedJob, reason: String)] = []
        }

        /// Claims up to `limit` due jobs of `kinds` in the named `queues` that are not paused, for `owner`, with leases of `lease` seconds, in one call of
        /// `claim_jobs` (one statement, atomic without a transaction): jobs due for longer than `starving` seconds
        /// first, oldest first; then by priority, start time and id. A job with exclusive categories is claimed
        /// together with all of them, or parked (`waiting`) until one is released. Jobs in `skip` are left alone.
        ///
        /// Each row is read on its own: a row this build cannot read (a retry policy written by a newer version)
        /// is returned in ``Claim/unreadable`` and does not disturb the others.
        package func claim(
            queues: [String] = [DurableJobOptions.defaultQueue], queueCaps: [Int?] = [], kinds: [String], limit: Int,
            owner: String,
            lease: TimeInterval, starving: TimeInterval, skip: [JobID], _ connection: PostgresConnection
        ) throws -> Claim {
            guard limit > 0, !kinds.isEmpty, !queues.isEmpty else { return Claim() }
            let rows = try connection.execute(
                """
                SELECT * FROM \(schema.name).claim_jobs($7::text[], $8::integer[], $1::text[], $2::integer, $3,
                    $4::float8, $5::float8, $6::bigint[])
                """,
                [
                    DurableSchema.textArray(kinds), String(limit), owner, String(lease), String(starving),
                    DurableSchema.integerArray(skip.map(\.rawValue)), DurableSchema.textArray(queues),
                    "{"
                        + queues.indices.map { index in
                            (index < queueCaps.count ? queueCaps[index] : nil).map(String.init) ?? "NULL"
                        }.joined(separator: ",") + "}",
                ]
            ).rows
            var claim = Claim()
            // Jobs of one batch mostly share a policy: decode each distinct one once.
            var policies: [String: Result<DurableRetryPolicy, any Error>] = [:]
            let decoder = JSONDecoder()
            for row in rows {
                // Without an id and a token the row cannot even be given back; the claim's own columns are never
                // NULL, so this is a broken server answer, not a newer writer.
                let id = JobID(rawValue: try row.int64("id"))
                let token = try row.int64("lease_token")
                let policyText = row["retry"] ?? ""
                let policy =
                    policies[policyText]
                    ?? Result { try decoder.decode(DurableRetryPolicy.self, from: Data(policyText.utf8)) }
                policies[policyText] = policy
                var problem: String?
                var retry = DurableRetryPolicy.never
                switch policy {
                case .success(let decoded): retry = decoded
                case .failure(let error): problem = "its retry policy \(policyText): \(error)"
                }
                let attempt = row["attempt"].flatMap(Int.init)
                let maxAttempts = row["max_attempts"].flatMap(Int.init)
                if attempt == nil || maxAttempts == nil { problem = problem ?? "its attempt counts" }
                let job = ClaimedJob(
                    id: id, kind: row["kind"] ?? "", attempt: attempt ?? 1, maxAttempts: maxAttempts ?? 1,
                    token: token, graph: row["graph_id"].flatMap(Int64.init).map(GraphID.init(rawValue:)),
                    retry: retry, input: row["input"], inputFrom: row["input_from"].flatMap(Int64.init).map(JobID.init),
                    timeout: row["timeout_seconds"].flatMap(Double.init).flatMap(Self.timeout(seconds:)),
                    periodStart: row["period_at"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:)),
                    queue: row["queue"] ?? DurableJobOptions.defaultQueue)
                if let problem {
                    claim.unreadable.append((job, problem))
                } else {
                    claim.jobs.append(job)
                }
            }
            return claim
        }

        /// A stored timeout as a duration within ``DurableKind/acceptedTimeouts``; `nil` for a value that is not a
        /// number (the kind's timeout applies).
        static func timeout(seconds: Double) -> Duration? {
            guard seconds.isFinite else { return nil }
            let milliseconds = Int64(min(max(seconds, 0), 365 * 86_400) * 1_000)
            return DurableKind.clamped(.milliseconds(milliseconds))
        }
    }
#endif
