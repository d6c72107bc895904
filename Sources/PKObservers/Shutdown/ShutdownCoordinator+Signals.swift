import Dispatch

extension ShutdownCoordinator {

    /// Opts the process in to shutting down on `signals` (usually `[SIGTERM, SIGINT]`): the first delivery of any
    /// of them requests shutdown, and each later one moves it on by one phase.
    ///
    /// ```swift
    /// ShutdownCoordinator.shared.handleSignals([SIGTERM, SIGINT])
    /// ```
    ///
    /// Call it once, early in `main`, before the work starts. Nothing else in PKObservers touches signals:
    /// importing the module or attaching a ``BackgroundObserver`` never does, because what this method does to the
    /// process cannot be undone and belongs to the program:
    ///
    /// - Each signal's disposition is set to `SIG_IGN`, so that its default action (terminating the process) no
    ///   longer runs; then a `DispatchSourceSignal` watches it.
    /// - On Linux, libdispatch installs its own `sigaction` handler the first time a source is created for a
    ///   signal, and never restores the previous one, even when the source is cancelled. From then on the signal
    ///   no longer terminates the process, whoever else expected to handle it.
    /// - After this call, the process ends on these signals only when the program returns from `main` or calls
    ///   `exit`, typically after ``syncWaitForShutdown()`` or ``waitForShutdown()`` returns. `SIGKILL` still ends
    ///   it at once.
    ///
    /// Returns once the signal sources are registered with the system (a few milliseconds, at most 5 s), so a
    /// signal sent after the call is not missed; `false`, with a logged warning, when registration did not complete
    /// in that time (the signals may then be missed). It blocks its thread meanwhile: in async code, use the `async`
    /// overload, which waits off the cooperative pool. Signals already handled by this coordinator are skipped; two
    /// coordinators handling the same signal both receive it. Deliveries of one signal that arrive before the first
    /// is read may be merged by the kernel into one.
    @available(*, noasync, message: "blocks its thread for up to 5 s; use the async handleSignals(_:) in async code")
    @discardableResult
    public func handleSignals(_ signals: [Int32]) -> Bool {
        listen(to: signals)
    }

    /// ``handleSignals(_:)-89clc`` for async code: the registration is waited for on a global queue, not on the calling
    /// task's thread. Returns `false`, with a logged warning, when it did not complete within 5 s.
    @discardableResult
    public func handleSignals(_ signals: [Int32]) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.listen(to: signals)) }
        }
    }
}
