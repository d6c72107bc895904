extension ShutdownCoordinator {

    /// Adds a participant: a long-lived part of the program that this coordinator stops, in turn, when the process
    /// shuts down, and whose stop holds the shutdown open until it returns.
    ///
    /// ```swift
    /// coordinator.addParticipant(named: "database") { await pool.close() }
    /// coordinator.addParticipant(named: "http") { try await server.drain() }
    /// coordinator.addParticipant(named: "metrics", stopOrder: 1) { await metrics.flush() }   // always last
    /// // On shutdown: http, then database, then metrics, each stop awaited before the next begins.
    /// ```
    ///
    /// Participants are stopped one at a time, in ascending `stopOrder`, and among equal stop orders the most
    /// recently added first, as a service group stops its services: add the parts in the order they depend on each
    /// other (the pool before the server that uses it), and each is stopped before what it depends on. Stopping
    /// begins as soon as shutdown is requested, alongside the watched procedures' cancellations; a stop that must
    /// wait for procedures awaits them itself (`await queue.allOperationsFinished()`).
    ///
    /// - `stop` runs in a Task of its own, never under a lock, once. The report records how it went
    ///   (``ShutdownReport/participants``): stopped, stopped after the grace period, failed (it threw; the next
    ///   participant is stopped all the same) or still stopping.
    /// - When the grace period expires, the stop in progress is cancelled (its Task), and every participant not
    ///   stopped yet begins its stop at once, already cancelled: time has run out, order no longer matters. A stop
    ///   that has not returned when the cancellation period ends is reported as still stopping, not waited for.
    /// - Added while shutdown is under way, a participant takes its place among those not stopped yet (and is
    ///   stopped at once if no stop is in progress); added after the grace period or after the end, it is stopped
    ///   at once, already cancelled, and nothing waits for it after the end.
    ///
    /// - Parameters:
    ///   - name: What the report calls it.
    ///   - stopOrder: Where it stops: lower first; 0 by default. Use it for a part that must stop first or last
    ///     whatever the order it was added in.
    ///   - stop: Stops the part: stop accepting work, finish or hand back what is in hand, close. Synchronous code
    ///     works too (it then occupies a thread of the cooperative pool until it returns).
    /// - Returns: The participant, to ``ShutdownParticipant/remove()`` it or to report its failure with
    ///   ``ShutdownParticipant/requestShutdown(dueTo:)``. The coordinator keeps it; there is no need to.
    @discardableResult
    public func addParticipant(
        named name: String, stopOrder: Int = 0, stop: @escaping @Sendable () async throws -> Void
    ) -> ShutdownParticipant {
        let participant = ShutdownParticipant(
            id: nextID(), name: name, stopOrder: stopOrder, coordinator: self, stop: stop)
        register(participant)
        return participant
    }
}
