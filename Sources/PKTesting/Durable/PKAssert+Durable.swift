#if Postgres
    import PKPostgres
    import XCTest

    // XCTest front ends for durable jobs, with ProcedureKit's naming. Each calls `XCTFail` once per failure found by
    // ``DurableJobCheck/enqueued(_:count:where:)``, at the caller's file and line. The overloads given a queue
    // read its jobs first (async); those given an ``EnqueuedDurableJobs`` check jobs already read, for example inside
    // a transaction. In Swift Testing `@Test` functions use the `PKExpectEnqueued…` functions.

    private func report(_ failures: [String], file: StaticString, line: UInt) {
        for failure in failures {
            XCTFail(failure, file: file, line: line)
        }
    }

    /// XCTest: fails unless exactly one of `found`'s jobs matches `predicate` (or, without one,
    /// unless `found` holds exactly one job), and returns it; `nil` after a failure.
    @discardableResult
    public func PKAssertEnqueued<P: DurableProcedure>(
        _ found: EnqueuedDurableJobs<P>, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) -> EnqueuedDurableJob<P>? {
        let failures = DurableJobCheck.enqueued(found, count: 1, where: predicate)
        report(failures, file: file, line: line)
        return failures.isEmpty ? (predicate.map { found.jobs.filter($0) } ?? found.jobs).first : nil
    }

    /// XCTest: reads the jobs of `type` enqueued on `queue` (after `mark`, when given) and fails
    /// unless exactly one matches `predicate` (or, without one, unless there is exactly one); returns it, `nil`
    /// after a failure.
    ///
    /// - Throws: what ``EnqueuedDurableJobs/init(_:on:since:)`` throws.
    @discardableResult
    public func PKAssertEnqueued<P: DurableProcedure>(
        _ type: P.Type, on queue: DurableQueue, since mark: DurableJobMark? = nil,
        where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil, file: StaticString = #filePath, line: UInt = #line
    ) async throws -> EnqueuedDurableJob<P>? {
        PKAssertEnqueued(
            try await EnqueuedDurableJobs(type, on: queue, since: mark), where: predicate,
            file: file, line: line)
    }

    /// XCTest: fails unless exactly `count` of `found`'s jobs match `predicate` (all of them
    /// count without one); returns the matching jobs, oldest first, whatever their number.
    @discardableResult
    public func PKAssertEnqueued<P: DurableProcedure>(
        _ found: EnqueuedDurableJobs<P>, count: Int, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) -> [EnqueuedDurableJob<P>] {
        report(DurableJobCheck.enqueued(found, count: count, where: predicate), file: file, line: line)
        return predicate.map { found.jobs.filter($0) } ?? found.jobs
    }

    /// XCTest: reads the jobs of `type` enqueued on `queue` (after `mark`, when given) and fails
    /// unless exactly `count` match `predicate` (all of them count without one); returns the matching jobs.
    ///
    /// - Throws: what ``EnqueuedDurableJobs/init(_:on:since:)`` throws.
    @discardableResult
    public func PKAssertEnqueued<P: DurableProcedure>(
        _ type: P.Type, count: Int, on queue: DurableQueue, since mark: DurableJobMark? = nil,
        where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil, file: StaticString = #filePath, line: UInt = #line
    ) async throws -> [EnqueuedDurableJob<P>] {
        PKAssertEnqueued(
            try await EnqueuedDurableJobs(type, on: queue, since: mark), count: count, where: predicate,
            file: file, line: line)
    }

    /// XCTest: fails if any of `found`'s jobs matches `predicate` (or, without one, if `found`
    /// holds any job).
    public func PKAssertNotEnqueued<P: DurableProcedure>(
        _ found: EnqueuedDurableJobs<P>, where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        report(DurableJobCheck.enqueued(found, count: 0, where: predicate), file: file, line: line)
    }

    /// XCTest: reads the jobs of `type` enqueued on `queue` (after `mark`, when given) and fails
    /// if any matches `predicate` (or, without one, if there is any).
    ///
    /// - Throws: what ``EnqueuedDurableJobs/init(_:on:since:)`` throws.
    public func PKAssertNotEnqueued<P: DurableProcedure>(
        _ type: P.Type, on queue: DurableQueue, since mark: DurableJobMark? = nil,
        where predicate: ((EnqueuedDurableJob<P>) -> Bool)? = nil, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        PKAssertNotEnqueued(
            try await EnqueuedDurableJobs(type, on: queue, since: mark), where: predicate,
            file: file, line: line)
    }
#endif
