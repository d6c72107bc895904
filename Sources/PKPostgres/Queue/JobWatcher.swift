#if Postgres
    import Foundation
    import PKCore

    /// Waits for jobs to finish on behalf of ``DurableQueue/waitUntilFinished(_:)``: one thread and one
    /// connection per queue, whatever the number of waiters, running only while someone waits. It listens to the
    /// finished channel and also checks every waited job each half second, so a notification lost to a broken
    /// connection delays an answer but never loses it.
    ///
    /// Thread-safe; `state` is its lock. Continuations are resumed outside the lock.
    final class JobWatcher: Sendable {
        private struct State {
            var waiters: [JobID: [UInt64: CheckedContinuation<DurableJobSnapshot, any Error>]] = [:]
            var nextToken: UInt64 = 0
            var threadRunning = false
        }

        private let state = PKMutex(State())
        private let wakePipe = WakePipe()
        private let connectionString: String
        private let store: DurableStore
        private let migrate: @Sendable (PostgresConnection) throws -> Void

        init(
            connectionString: String, store: DurableStore,
            migrate: @escaping @Sendable (PostgresConnection) throws -> Void
        ) {
            self.connectionString = connectionString
            self.store = store
            self.migrate = migrate
        }

        /// Suspends until `id` is finished; throws `CancellationError` when the task is cancelled first.
        func wait(for id: JobID) async throws -> DurableJobSnapshot {
            let token = state.withLock { state -> UInt64 in
                defer { state.nextToken += 1 }
                return state.nextToken
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let startThread = state.withLock { state -> Bool in
                        state.waiters[id, default: [:]][token] = continuation
                        defer { state.threadRunning = true }
                        return !state.threadRunning
                    }
                    if startThread {
                        let thread = Thread { [self] in run() }
                        thread.name = "PKPostgres.JobWatcher"
                        thread.start()
                    } else {
                        wakePipe.wake()
                    }
                    if Task.isCancelled { remove(id, token, with: .failure(CancellationError())) }
                }
            } onCancel: {
                remove(id, token, with: .failure(CancellationError()))
            }
        }

        private func remove(_ id: JobID, _ token: UInt64, with result: Result<DurableJobSnapshot, any Error>) {
            let continuation = state.withLock { state -> CheckedContinuation<DurableJobSnapshot, any Error>? in
                let removed = state.waiters[id]?.removeValue(forKey: token)
                if state.waiters[id]?.isEmpty == true { state.waiters[id] = nil }
                return removed
            }
            continuation?.resume(with: result)
        }

        /// The thread's loop: ends when nobody waits.
        private func run() {
            var connection: PostgresConnection?
            var backoff = 0.05
            while true {
                let waited = state.withLock { state -> [JobID] in
                    if state.waiters.isEmpty { state.threadRunning = false }
                    return Array(state.waiters.keys)
                }
                guard !waited.isEmpty else { break }
                do {
                    if connection == nil || connection?.isOpen == false {
                        let fresh = try PostgresConnection(connectionString)
                        try migrate(fresh)
                        try fresh.listen(store.schema.finishedChannel)
                        connection = fresh
                    }
                    guard let connection else { continue }
                    var finished: [(JobID, Result<DurableJobSnapshot, any Error>)] = []
                    for id in waited {
                        if let snapshot = try store.snapshot(of: id, connection) {
                            if snapshot.state.isFinished { finished.append((id, .success(snapshot))) }
                        } else {
                            finished.append((id, .failure(DurableError.jobNotFound(id))))
                        }
                    }
                    for (id, result) in finished { resolveAll(id, with: result) }
                    if !finished.isEmpty { continue }
                    _ = try connection.waitForNotifications(timeout: 0.5, wakeDescriptor: wakePipe.readDescriptor)
                    wakePipe.drain()
                    backoff = 0.05
                } catch {
                    connection?.close()
                    connection = nil
                    Thread.sleep(forTimeInterval: backoff)
                    backoff = min(backoff * 2, 2)
                }
            }
            connection?.close()
        }

        private func resolveAll(_ id: JobID, with result: Result<DurableJobSnapshot, any Error>) {
            let continuations = state.withLock { state in
                state.waiters.removeValue(forKey: id).map { Array($0.values) } ?? []
            }
            for continuation in continuations { continuation.resume(with: result) }
        }
    }
#endif
