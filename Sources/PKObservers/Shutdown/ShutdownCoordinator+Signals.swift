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
    /// Returns once the signal sources are registered with the system (a few milliseconds), so a signal sent
    /// after the call is not missed. Signals already handled by this coordinator are skipped; two coordinators
    /// handling the same signal both receive it. Deliveries of one signal that arrive before the first is read
    /// may be merged by the kernel into one.
    public func handleSignals(_ signals: [Int32]) {
        listen(to: signals)
    }
}
