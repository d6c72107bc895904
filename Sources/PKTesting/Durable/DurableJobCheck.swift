#if Postgres
    import PKPostgres

    /// The checks behind the `PKExpectEnqueued…` and `PKAssertEnqueued…` assertions, as pure functions that return
    /// failure messages (empty when the check passes), like ``ProcedureCheck``.
    public enum DurableJobCheck {
        /// Checks that exactly `count` of `found`'s jobs satisfy `predicate` (all of them count when it is `nil`).
        ///
        /// A failure says what was expected (the type and kind, the mark, whether a predicate applied) and what was
        /// found: the matching jobs, or, when none matched, the kind's other jobs.
        public static func enqueued<P: DurableProcedure>(
            _ found: EnqueuedDurableJobs<P>, count: Int, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil
        ) -> [String] {
            let matching = predicate.map { found.jobs.filter($0) } ?? found.jobs
            guard matching.count != count else { return [] }
            let jobs = count == 0 ? "no job" : count == 1 ? "1 job" : "\(count) jobs"
            var expected = "expected \(jobs) of \(P.self) (kind \"\(P.kind)\") enqueued"
            if let mark = found.mark { expected += " \(mark)" }
            if predicate != nil { expected += " matching the predicate" }
            guard matching.isEmpty else {
                return ["\(expected); found \(matching.count): \(describe(matching))"]
            }
            if found.jobs.isEmpty { return ["\(expected); found none (no job of that kind at all)"] }
            return ["\(expected); found none, and \(found.jobs.count) that do not match: \(describe(found.jobs))"]
        }

        /// The jobs in a few words each, the first ten of them.
        static func describe<P>(_ jobs: [EnqueuedDurableJob<P>]) -> String {
            var parts = jobs.prefix(10).map { job in
                let input: String
                if let source = job.options.inputFrom {
                    input = "from \(source)"
                } else if let json = job.snapshot.inputJSON {
                    input = json.count > 200 ? String(json.prefix(200)) + "…" : json
                } else {
                    input = "none"
                }
                return "\(job.id) (\(job.snapshot.state), queue \"\(job.options.queue)\", input \(input))"
            }
            if jobs.count > 10 { parts.append("and \(jobs.count - 10) more") }
            return parts.joined(separator: "; ")
        }
    }
#endif
