import PKCore

/// Keeps a procedure's process from shutting down under it: the procedure holds a ``ShutdownCoordinator``'s
/// shutdown open until it finishes, and is cancelled when its ``CancellationBehavior`` says.
///
/// ProcedureKit's `BackgroundObserver` began an iOS background task for its procedure and could cancel it when the
/// app went to the background. On Linux, going to the background becomes being asked to shut down (`SIGTERM` from
/// systemd, Docker or Kubernetes, or the program's own request), and the background task's time becomes the
/// coordinator's grace period:
///
/// ```swift
/// let upload = UploadProcedure(file: file)
/// upload.addObserver(BackgroundObserver())                                    // finish it if at all possible
///
/// let poll = PollProcedure()
/// poll.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested))  // stop it at once
/// ```
///
/// - When attached, it registers the procedure with the coordinator (``ShutdownCoordinator/shared`` unless one is
///   given). If shutdown is already under way and the procedure's moment to be cancelled has passed, the
///   procedure is cancelled at once.
/// - When the procedure finishes, the coordinator stops watching it. If it was the last one the coordinator was
///   waiting for, the wait ends there, and a program may exit before the procedure's later observers run: add
///   the `BackgroundObserver` after the procedure's other observers.
///
/// A procedure that stands for a long-lived part of the program (a server, a consumer) can opt in to shutting the
/// rest down when it fails, as a service group does for a failing service: with `requestsShutdownOnFailure`, its
/// finishing with an error while the coordinator is running requests shutdown, with the procedure's name and
/// error as the report's ``ShutdownReport/Reason/failure(_:)``:
///
/// ```swift
/// let observer = BackgroundObserver(
///     cancelProcedure: .whenShutdownRequested, requestsShutdownOnFailure: true, coordinator: coordinator)
/// consumer.addObserver(observer)
/// ```
///
/// The coordinator holds the procedure weakly and the procedure holds the observer until it finishes, so neither
/// keeps the other alive. One observer value can be attached to several procedures. Attaching a second
/// `BackgroundObserver` for the same coordinator to one procedure logs a warning on the procedure's log; the
/// earlier-cancelling behaviour of the two applies.
///
/// Its callbacks run in the procedure's event context; cancellations it asks for are delivered there too.
public struct BackgroundObserver: ProcedureObserver {

    /// When the procedure is cancelled as the process shuts down.
    public let behavior: CancellationBehavior

    /// The coordinator the procedure is registered with.
    public let coordinator: ShutdownCoordinator

    /// Whether the procedure's failure requests shutdown of the rest of the program.
    public let requestsShutdownOnFailure: Bool

    /// Creates an observer.
    ///
    /// - Parameters:
    ///   - behavior: When to cancel the procedure; by default ``CancellationBehavior/never``, as in ProcedureKit.
    ///   - requestsShutdownOnFailure: When `true`, the procedure finishing with an error (other than the
    ///     shutdown's own cancellation errors) requests shutdown, with its name and first such error as the
    ///     reason, unless shutdown was requested already. `false` by default.
    ///   - coordinator: The coordinator to register with: the program's, handed down to the code that creates the
    ///     observer (``ShutdownCoordinator/shared`` by default); tests pass one of their own.
    public init(
        cancelProcedure behavior: CancellationBehavior = .never, requestsShutdownOnFailure: Bool = false,
        coordinator: ShutdownCoordinator = .shared
    ) {
        self.behavior = behavior
        self.requestsShutdownOnFailure = requestsShutdownOnFailure
        self.coordinator = coordinator
    }

    /// Registers the procedure with the coordinator (which may cancel it at once, see the type's documentation).
    public func didAttach(to procedure: Procedure) {
        coordinator.register(procedure, behavior: behavior)
    }

    /// Tells the coordinator the procedure has finished, then, with ``requestsShutdownOnFailure``, requests
    /// shutdown if it failed.
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        coordinator.procedureDidFinish(procedure)
        guard requestsShutdownOnFailure, let error = errors.first(where: { !Self.isShutdownCancellation($0) }) else {
            return
        }
        coordinator.requestShutdown(dueTo: ShutdownReport.Failure(name: procedure.procedureName, error: error))
    }

    /// Whether `error` is one a coordinator cancels procedures with: the shutdown's doing, not a failure.
    static func isShutdownCancellation(_ error: any Error) -> Bool {
        guard let error = error as? ProcedureKitError else { return false }
        return error.context == .shutdownRequested || error.context == .shutdownGracePeriodExpired
    }
}
