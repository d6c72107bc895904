extension ShutdownCoordinator {

    /// Runs `operation` with a handler that is called once, when shutdown is requested: for code that is neither a
    /// watched procedure nor a participant and must not poll, such as a server's accept loop.
    ///
    /// ```swift
    /// let (connections, intake) = AsyncStream.makeStream(of: Connection.self)
    /// try await coordinator.withShutdownHandler {
    ///     for await connection in connections { try await serve(connection) }
    /// } onShutdownRequested: {
    ///     intake.finish()   // stop accepting; the loop ends once the connections in hand are served
    /// }
    /// ```
    ///
    /// - The handler is registered before `operation` starts and removed when it returns or throws: a scope that
    ///   has ended is never called back, and nothing is kept. If the handler is running as `operation` returns
    ///   (shutdown was requested at that moment), the scope waits for it to return before it ends.
    /// - When shutdown has already been requested, the handler runs at once, on the calling thread, before
    ///   `operation` starts. Otherwise it runs on the thread that requested shutdown (the caller of
    ///   ``requestShutdown()``, a thread of the coordinator's for a signal, or the failing part's), outside the
    ///   coordinator's lock, before any
    ///   procedure is cancelled or participant stopped, while `operation` may be running concurrently.
    /// - The handler does not hold shutdown open: to be waited for, be a participant
    ///   (``addParticipant(named:stopOrder:stop:)``) or a watched procedure.
    ///
    /// `operation` runs in the caller's isolation and is not cancelled by shutdown; cancelling the calling Task
    /// does not call the handler.
    public func withShutdownHandler<Value, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws(Failure) -> Value,
        onShutdownRequested handler: @escaping @Sendable () -> Void
    ) async throws(Failure) -> Value {
        let scope = ShutdownHandlerScope(handler)
        let id = nextID()
        addRequestListener(id) { _ in scope.call() }
        let outcome: Result<Value, Failure>
        do throws(Failure) {
            outcome = .success(try await operation())
        } catch {
            outcome = .failure(error)
        }
        // Still listening: it will never be called. Otherwise it was handed over to be called: end its scope.
        if !removeRequestListener(id) { await scope.end() }
        return try outcome.get()
    }

    /// Runs `operation` with a handler that is called once, when shutdown is requested: the synchronous form of
    /// ``withShutdownHandler(isolation:operation:onShutdownRequested:)``, for a thread of a synchronous program
    /// (a blocking loop whose handler closes what it blocks on).
    ///
    /// The handler is registered before `operation` starts and removed when it returns or throws; if the handler is
    /// running as `operation` returns, this thread waits for it. It runs at once, on the calling thread, when
    /// shutdown has already been requested; otherwise on the thread that requests it, outside the coordinator's
    /// lock, while `operation` may be running on this one.
    public func withShutdownHandler<Value, Failure: Error>(
        operation: () throws(Failure) -> Value,
        onShutdownRequested handler: @escaping @Sendable () -> Void
    ) throws(Failure) -> Value {
        let scope = ShutdownHandlerScope(handler)
        let id = nextID()
        addRequestListener(id) { _ in scope.call() }
        defer {
            if !removeRequestListener(id) { scope.endBlocking() }
        }
        return try operation()
    }

    /// Suspends until shutdown has been requested, by a signal, the program or a failing part, and returns why;
    /// returns at once when it has been already.
    ///
    /// Unlike ``waitForShutdown()``, which returns the report once the coordinator has stopped waiting, this returns
    /// as shutdown begins: a service's `main` awaits it, then stops accepting work.
    ///
    /// ```swift
    /// let reason = try await coordinator.waitForShutdownRequest()
    /// logger.info("shutting down: \(reason)")
    /// ```
    ///
    /// - Throws: `CancellationError` when the calling Task is cancelled; the wait is then forgotten.
    public func waitForShutdownRequest() async throws -> ShutdownReport.Reason {
        let gate = ShutdownGate<ShutdownReport.Reason>()
        let id = nextID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                gate.install(continuation)
                addRequestListener(id) { event in
                    if case .shutdownRequested(let reason) = event { gate.resolve(.success(reason)) }
                }
                if Task.isCancelled { stopWaitingForRequest(id, gate) }
            }
        } onCancel: {
            stopWaitingForRequest(id, gate)
        }
    }

    private func stopWaitingForRequest(_ id: Int, _ gate: ShutdownGate<ShutdownReport.Reason>) {
        gate.resolve(.failure(CancellationError()))
        removeRequestListener(id)
    }
}
