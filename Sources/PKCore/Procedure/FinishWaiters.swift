/// Tasks suspended until a procedure has completely finished (its DidFinish observers included).
///
/// The waiters are a ``SmallList``, so the common case (one `await` per procedure, as `ProcedureQueue.run` does)
/// allocates nothing. Once closed, nobody is added any more. Not thread-safe: it lives in the procedure's storage,
/// under the procedure's mutex.
struct FinishWaiters {
    private var waiters = SmallList<UnsafeContinuation<Void, Never>>()
    private var isClosed = false

    /// How many waiters are held.
    var count: Int { waiters.count }

    /// Adds `waiter`; returns `false` (keeping nothing) once closed, and the caller resumes it itself.
    mutating func add(_ waiter: UnsafeContinuation<Void, Never>) -> Bool {
        guard !isClosed else { return false }
        waiters.append(waiter)
        return true
    }

    /// Closes the list and returns the waiters it held, for the caller to resume outside the lock.
    mutating func close() -> FinishWaiters {
        var closed = FinishWaiters()
        closed.isClosed = true
        swap(&self, &closed)
        return closed
    }

    /// Resumes every waiter, in the order they were added.
    func resumeAll() {
        for waiter in waiters { waiter.resume() }
    }
}
