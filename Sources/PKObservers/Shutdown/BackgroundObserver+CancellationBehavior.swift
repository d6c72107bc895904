extension BackgroundObserver {

    /// When a procedure watched by a ``BackgroundObserver`` is cancelled as the process shuts down.
    ///
    /// A shutdown runs in two timed periods (see ``ShutdownCoordinator``): the *grace period*, which starts when
    /// shutdown is requested, and the *cancellation period*, which starts when the grace period expires. Every
    /// watched procedure holds shutdown open until it finishes or the cancellation period ends; the behaviour only
    /// says when the procedure is told to stop, by a cancel with a `ProcedureKitError`.
    ///
    /// | Behaviour | Cancelled |
    /// | --- | --- |
    /// | ``never`` | not while the coordinator waits; only when it stops waiting, as the process is about to exit |
    /// | ``whenShutdownRequested`` | when shutdown is requested (`ProcedureKitError.Context.shutdownRequested`) |
    /// | ``whenGracePeriodExpires`` | when the grace period expires (`ProcedureKitError.Context.shutdownGracePeriodExpired`) |
    ///
    /// Attached while shutdown is already under way, a procedure whose moment has passed is cancelled at once.
    public enum CancellationBehavior: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Never cancelled while the coordinator waits: the procedure holds shutdown open until it finishes, as an
        /// iOS background task keeps an app running. If it is still running when the cancellation period ends, the
        /// coordinator stops waiting, cancels it as a last notice (the process is about to exit) and reports it
        /// as still running. To be given time to clean up when time runs out, use ``whenGracePeriodExpires``.
        case never

        /// Cancelled as soon as shutdown is requested, with `ProcedureKitError.shutdownRequested()`;
        /// the procedure still holds shutdown open until it finishes, which leaves it time to clean up.
        /// ProcedureKit called it ``whenAppIsBackgrounded``.
        case whenShutdownRequested

        /// Keeps running through the grace period and is cancelled when it expires, with
        /// `ProcedureKitError.shutdownGracePeriodExpired()`; it then has the cancellation period to
        /// finish. ProcedureKit named this behaviour but never built it.
        case whenGracePeriodExpires

        /// ProcedureKit's name for ``whenShutdownRequested``: on Linux, going to the background is being asked to
        /// shut down.
        public static let whenAppIsBackgrounded = CancellationBehavior.whenShutdownRequested

        /// The case's name, such as `"whenShutdownRequested"`.
        public var description: String {
            switch self {
            case .never: "never"
            case .whenShutdownRequested: "whenShutdownRequested"
            case .whenGracePeriodExpires: "whenGracePeriodExpires"
            }
        }

        /// How early in a shutdown this behaviour cancels: lower is earlier. When two observers watch one
        /// procedure, the earlier behaviour wins.
        var cancellationRank: Int {
            switch self {
            case .whenShutdownRequested: 0
            case .whenGracePeriodExpires: 1
            case .never: 2
            }
        }
    }
}
