#if Postgres
    import PKPostgres
    import Testing

    // Swift Testing front ends for durable jobs. Each records one issue per failure found by
    // ``DurableJobCheck/enqueued(_:count:where:)``, at the caller's source location. The overloads given a queue
    // read its jobs first (async); those given an ``EnqueuedDurableJobs`` check jobs already read, for example inside
    // a transaction. In XCTest suites use the `PKAssertEnqueued…` functions.

    private func report(_ failures: [String], at sourceLocation: SourceLocation) {
        for failure in failures {
            Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
        }
    }

    /// Swift Testing: records an issue unless exactly one of `found`'s jobs matches `predicate` (or, without one,
    /// unless `found` holds exactly one job), and returns it; `nil` after an issue.
    @discardableResult
    public func PKExpectEnqueued<P: DurableProcedure>(
        _ found: EnqueuedDurableJobs<P>, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> EnqueuedDurableJob<P>? {
        let failures = DurableJobCheck.enqueued(found, count: 1, where: predicate)
        report(failures, at: sourceLocation)
        return failures.isEmpty ? (predicate.map { found.jobs.filter($0) } ?? found.jobs).first : nil
    }

    /// Swift Testing: reads the jobs of `type` enqueued on `queue` (after `mark`, when given) and records an issue
    /// unless exactly one matches `predicate` (or, without one, unless there is exactly one); returns it, `nil`
    /// after an issue.
    ///
    /// - Throws: what ``EnqueuedDurableJobs/init(_:on:since:)`` throws.
    @discardableResult
    public func PKExpectEnqueued<P: DurableProcedure>(
        _ type: P.Type, on queue: DurableQueue, since mark: DurableJobMark? = nil,
        where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> EnqueuedDurableJob<P>? {
        PKExpectEnqueued(
            try await EnqueuedDurableJobs(type, on: queue, since: mark), where: predicate,
            sourceLocation: sourceLocation)
    }

    /// Swift Testing: records an issue unless exactly `count` of `found`'s jobs match `predicate` (all of them
    /// count without one); returns the matching jobs, oldest first, whatever their number.
    @discardableResult
    public func PKExpectEnqueued<P: DurableProcedure>(
        _ found: EnqueuedDurableJobs<P>, count: Int, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [EnqueuedDurableJob<P>] {
        report(DurableJobCheck.enqueued(found, count: count, where: predicate), at: sourceLocation)
        return predicate.map { found.jobs.filter($0) } ?? found.jobs
    }

    /// Swift Testing: reads the jobs of `type` enqueued on `queue` (after `mark`, when given) and records an issue
    /// unless exactly `count` match `predicate` (all of them count without one); returns the matching jobs.
    ///
    /// - Throws: what ``EnqueuedDurableJobs/init(_:on:since:)`` throws.
    @discardableResult
    public func PKExpectEnqueued<P: DurableProcedure>(
        _ type: P.Type, count: Int, on queue: DurableQueue, since mark: DurableJobMark? = nil,
        where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [EnqueuedDurableJob<P>] {
        PKExpectEnqueued(
            try await EnqueuedDurableJobs(type, on: queue, since: mark), count: count, where: predicate,
            sourceLocation: sourceLocation)
    }

    /// Swift Testing: records an issue if any of `found`'s jobs matches `predicate` (or, without one, if `found`
    /// holds any job).
    public func PKExpectNotEnqueued<P: DurableProcedure>(
        _ found: EnqueuedDurableJobs<P>, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        report(DurableJobCheck.enqueued(found, count: 0, where: predicate), at: sourceLocation)
    }

    /// Swift Testing: reads the jobs of `type` enqueued on `queue` (after `mark`, when given) and records an issue
    /// if any matches `predicate` (or, without one, if there is any).
    ///
    /// - Throws: what ``EnqueuedDurableJobs/init(_:on:since:)`` throws.
    public func PKExpectNotEnqueued<P: DurableProcedure>(
        _ type: P.Type, on queue: DurableQueue, since mark: DurableJobMark? = nil,
        where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        PKExpectNotEnqueued(
            try await EnqueuedDurableJobs(type, on: queue, since: mark), where: predicate,
            sourceLocation: sourceLocation)
    }
#endif
