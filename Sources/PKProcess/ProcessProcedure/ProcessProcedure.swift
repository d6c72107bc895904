import Foundation
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A procedure that runs a program as a child process and finishes when it has ended: ProcedureKit's
/// `ProcessProcedure`, on Linux, launched with `posix_spawn` and supervised so that nothing is left behind.
///
/// ```swift
/// let checksum = ProcessProcedure(command: "sha256sum", arguments: ["archive.tar.gz"], standardOutput: .capture())
/// queue.addOperation(checksum)
/// ```
///
/// - Input: a ``LaunchRequest``, given to an initialiser or injected; a procedure executed without one fails
///   with ``/PKCore/ProcedureKitError/requirementNotSatisfied()``.
/// - Output: a ``TerminationResult`` (status, reason, captured output) when the `processDidExitCleanly` rule
///   accepts how the process ended (by default: exit status 0); otherwise the procedure fails with
///   ``Error/didNotExitCleanly(_:_:)``, the tail of standard error in its description when it was read.
/// - Bad input (an empty, relative, missing, directory or non-executable path, an argument with a NUL byte, an
///   environment key with `=`, a missing working directory, an unsupported stream) fails the procedure with a
///   typed ``Error`` before anything is launched.
/// - Cancellation (``/PKCore/Procedure/cancel()``, a timeout, a shutdown) sends `SIGTERM` to the child's process
///   group, and `SIGKILL` when ``terminationGracePeriod`` has passed; the procedure finishes once the child is
///   reaped and the group is empty, with the cancellation's errors only (ProcedureKit hides how the process
///   ended).
/// - The child leads a process group of its own, unless this program runs in the foreground of a terminal (see
///   ``usesOwnProcessGroup``). When it exits, what it left running in that group is ended the same way (`SIGTERM`,
///   then `SIGKILL` after the grace period) unless ``endsProcessGroupOnExit`` is `false`.
/// - A `Pipe` end goes to one procedure: a second procedure given the same end fails with
///   ``Error/Code/invalidStandardStream`` before anything is launched.
///
/// Each running process has a supervising thread of its own (not a thread of the queue or of Swift's
/// cooperative pool), which feeds its input, drains its output, calls `processDidLaunch`, line handlers and
/// `processDidExitCleanly`, and finishes the procedure.
open class ProcessProcedure: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `values` is guarded by its PKMutex, the child's lifecycle by ChildLifecycle's; the
    // hooks are immutable and Sendable; the rest is Procedure's.

    /// Called once the process has been launched, with this procedure (its ``processIdentifier`` is set).
    public typealias ProcessDidLaunch = @Sendable (ProcessProcedure) -> Void

    /// Decides whether the process exited cleanly, from its exit status (or signal number) and reason.
    public typealias ProcessDidExitCleanly = @Sendable (Int32, Process.TerminationReason) -> Bool

    /// ProcedureKit's rule: clean when the process exited with status 0; a signal is never clean.
    public static let defaultProcessDidExitCleanly: ProcessDidExitCleanly = { status, reason in
        reason == .exit && status == 0
    }

    private struct Values {
        var input: Pending<LaunchRequest>
        var output: Pending<ProcedureResult<TerminationResult>> = .pending
        var processIdentifier: Int32 = 0
        var process: RunningProcess?
        var standardInputOverride: ProcessInputSource?
        var terminationGracePeriod: Duration = .seconds(5)
        var endsProcessGroupOnExit = true
        /// `nil` until set: then decided at launch (``ProcessProcedure/usesOwnProcessGroup``).
        var usesOwnProcessGroup: Bool?
        var namesGroupsByNumber = false
    }

    private let values: PKMutex<Values>
    /// The child's lifecycle: launch, cancel, suspend and resume, reap.
    let lifecycle = ChildLifecycle()
    private let processDidLaunch: ProcessDidLaunch
    private let processDidExitCleanly: ProcessDidExitCleanly

    // MARK: - Initialisers

    /// A procedure that launches the executable at `launchPath` (absolute), with ProcedureKit's optional
    /// parameters (see ``LaunchRequest``).
    ///
    /// `processDidLaunch` is called on the supervising thread once the process is launched; keep it quick, the
    /// process's pipes are not served while it runs. `processDidExitCleanly` is called on the supervising thread
    /// when the process has ended (unless the procedure was cancelled); `false` fails the procedure with
    /// ``Error/didNotExitCleanly(_:_:)``.
    public convenience init(
        launchPath: String, arguments: [String]? = nil, currentDirectoryPath: String? = nil,
        environment: [String: String]? = nil, standardError: (any Sendable)? = nil,
        standardInput: (any Sendable)? = nil, standardOutput: (any Sendable)? = nil,
        processDidLaunch: @escaping ProcessDidLaunch = { _ in },
        processDidExitCleanly: @escaping ProcessDidExitCleanly = ProcessProcedure.defaultProcessDidExitCleanly
    ) {
        var request = LaunchRequest(
            executableURL: URL(fileURLWithPath: launchPath), arguments: arguments,
            currentDirectoryURL: currentDirectoryPath.map { URL(fileURLWithPath: $0) }, environment: environment,
            standardError: standardError, standardInput: standardInput, standardOutput: standardOutput)
        // Foundation makes "" the working directory's URL: ProcedureKit's empty-path error is kept here.
        if launchPath.isEmpty { request.searchFailure = .emptyLaunchPath }
        self.init(
            launchRequest: request, processDidLaunch: processDidLaunch, processDidExitCleanly: processDidExitCleanly)
    }

    /// A procedure that launches the executable at `executableURL`, with ProcedureKit's optional parameters (see
    /// ``LaunchRequest``, and ``init(launchPath:arguments:currentDirectoryPath:environment:standardError:standardInput:standardOutput:processDidLaunch:processDidExitCleanly:)``
    /// for the hooks).
    public convenience init(
        executableURL: URL, arguments: [String]? = nil, currentDirectoryURL: URL? = nil,
        environment: [String: String]? = nil, standardError: (any Sendable)? = nil,
        standardInput: (any Sendable)? = nil, standardOutput: (any Sendable)? = nil,
        processDidLaunch: @escaping ProcessDidLaunch = { _ in },
        processDidExitCleanly: @escaping ProcessDidExitCleanly = ProcessProcedure.defaultProcessDidExitCleanly
    ) {
        let request = LaunchRequest(
            executableURL: executableURL, arguments: arguments, currentDirectoryURL: currentDirectoryURL,
            environment: environment, standardError: standardError, standardInput: standardInput,
            standardOutput: standardOutput)
        self.init(
            launchRequest: request, processDidLaunch: processDidLaunch, processDidExitCleanly: processDidExitCleanly)
    }

    /// A procedure that launches `command`, looked for in `PATH` as a shell would when it has no `/` (see
    /// ``LaunchRequest/init(command:arguments:currentDirectoryURL:environment:standardInput:standardOutput:standardError:)``),
    /// with typed standard streams.
    public convenience init(
        command: String, arguments: [String] = [], currentDirectoryURL: URL? = nil,
        environment: [String: String]? = nil, standardInput: ProcessInputSource = .inherit,
        standardOutput: ProcessOutputDestination = .inherit, standardError: ProcessOutputDestination = .inherit,
        processDidLaunch: @escaping ProcessDidLaunch = { _ in },
        processDidExitCleanly: @escaping ProcessDidExitCleanly = ProcessProcedure.defaultProcessDidExitCleanly
    ) {
        let request = LaunchRequest(
            command: command, arguments: arguments, currentDirectoryURL: currentDirectoryURL,
            environment: environment, standardInput: standardInput, standardOutput: standardOutput,
            standardError: standardError)
        self.init(
            launchRequest: request, processDidLaunch: processDidLaunch, processDidExitCleanly: processDidExitCleanly)
    }

    /// A procedure that launches what `launchRequest` describes, or, when it is `nil`, a request injected before
    /// it executes (`injectResult(from:)`).
    public init(
        launchRequest: LaunchRequest? = nil, processDidLaunch: @escaping ProcessDidLaunch = { _ in },
        processDidExitCleanly: @escaping ProcessDidExitCleanly = ProcessProcedure.defaultProcessDidExitCleanly
    ) {
        self.processDidLaunch = processDidLaunch
        self.processDidExitCleanly = processDidExitCleanly
        self.values = PKMutex(Values(input: launchRequest.map { .ready($0) } ?? .pending))
        super.init()
        name = "ProcessProcedure"
    }

    // MARK: - Input and output

    /// The ``LaunchRequest``; setting it after the procedure has started executing has no effect.
    public var input: Pending<LaunchRequest> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    /// The result: ``TerminationResult`` on success, else the error the procedure failed with; pending until it
    /// finishes (and after a cancellation).
    public var output: Pending<ProcedureResult<TerminationResult>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    /// The launched process's id: `0` until it is launched, then kept after it ends (when the id may belong to
    /// another process already).
    public var processIdentifier: Int32 { values.withLock { $0.processIdentifier } }

    /// How long a cancelled process (and what it left in its process group) has between `SIGTERM` and `SIGKILL`:
    /// 5 seconds unless set before the procedure executes.
    /// Negative values count as zero; values over a year as a year.
    public var terminationGracePeriod: Duration {
        get { values.withLock { $0.terminationGracePeriod } }
        set { values.withLock { $0.terminationGracePeriod = min(max(.zero, newValue), .seconds(365 * 86_400)) } }
    }

    /// Whether processes the child left running in its process group when it exited are ended (`SIGTERM`, then
    /// `SIGKILL` after ``terminationGracePeriod``) before the procedure finishes: `true` unless set before the
    /// procedure executes.
    ///
    /// `true` keeps the module's promise that nothing a procedure started outlives it, and is what a service running
    /// jobs wants: a script's forgotten `server &` is ended with the script, as it would be on cancellation.
    /// `Foundation.Process` leaves such processes running; set `false` for a child that starts a background
    /// process on purpose and expects it to stay, or have the child detach it from the group (`setsid`; `nohup`
    /// does not). Processes that left the group (`setsid`, a daemon's double fork) are never touched, and without a
    /// group of its own (``usesOwnProcessGroup``) there is no group to end.
    public var endsProcessGroupOnExit: Bool {
        get { values.withLock { $0.endsProcessGroupOnExit } }
        set { values.withLock { $0.endsProcessGroupOnExit = newValue } }
    }

    /// Whether the child leads a process group of its own; unless set before the procedure executes, decided when it
    /// launches: `true`, except when this process is in the foreground of a terminal.
    ///
    /// In a group of its own, the child and everything it starts are signalled together (cancellation, suspension,
    /// ``endsProcessGroupOnExit``), and nothing the child started is left behind; a terminal's Ctrl-C reaches this
    /// process only, which decides what to cancel. But a group of its own is a background group on a terminal: a child
    /// that reads the terminal (a password prompt from `sudo` or `ssh`, an editor, a `[y/N]` question) would be
    /// stopped by `SIGTTIN`, and the procedure would wait until cancelled. So a program run in the foreground of a
    /// terminal (a command-line tool) keeps its children in its own group, as
    /// `Foundation.Process` does: they can use the terminal, Ctrl-C reaches them as it reaches this process, and
    /// cancellation signals the child alone. A service, a container, a CI job (no controlling terminal) and a program
    /// in the background get a group per child. Set `true` (say, for children that never read the terminal, to stop
    /// their own children on cancellation) or `false` to choose; reading the property before the procedure launches
    /// gives what would be decided now.
    public var usesOwnProcessGroup: Bool {
        get { values.withLock { $0.usesOwnProcessGroup } ?? !ControllingTerminal.thisProcessIsInTheForeground() }
        set { values.withLock { $0.usesOwnProcessGroup = newValue } }
    }

    /// FAKE for tests: the supervisor ends the child's group by its id before reaping the child, as on a kernel that
    /// cannot signal a group through a pidfd (older than Linux 6.9), which cannot be had here.
    var namesGroupsByNumber: Bool {
        get { values.withLock { $0.namesGroupsByNumber } }
        set { values.withLock { $0.namesGroupsByNumber = newValue } }
    }

    /// The running process, for ProcedureKit's tests (`process.terminate()`); `nil` before launch.
    var process: RunningProcess? { values.withLock { $0.process } }

    /// Sets the standard input that replaces the request's (``injectStandardInput(from:)-(ProcessProcedure)``).
    func setStandardInput(_ source: ProcessInputSource) {
        values.withLock { $0.standardInputOverride = source }
    }

    // MARK: - Lifecycle

    /// Checks the request and starts the supervising thread, which launches the process.
    open override func execute() {
        guard let request = input.value else {
            finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        let (inputOverride, gracePeriod, endsGroup, chosenGroup, byNumber) = values.withLock {
            (
                $0.standardInputOverride, $0.terminationGracePeriod, $0.endsProcessGroupOnExit, $0.usesOwnProcessGroup,
                $0.namesGroupsByNumber
            )
        }
        let ownGroup = chosenGroup ?? !ControllingTerminal.thisProcessIsInTheForeground()
        guard !isCancelled else {
            finish()
            return
        }
        let plan: LaunchPlan
        let wake: WakePipe
        do {
            plan = try LaunchPlan(request, inputOverride: inputOverride, usesOwnProcessGroup: ownGroup)
            wake = try WakePipe()
        } catch {
            let failure = error as? ProcessProcedure.Error ?? Error(code: .launchFailed, detail: "\(error)")
            finish(withResult: .failure(failure))
            return
        }
        var supervisor = ChildSupervisor(
            plan: plan, lifecycle: lifecycle, wake: wake, gracePeriod: gracePeriod, endsProcessGroup: endsGroup,
            log: { [log] line, isStandardError in
                if isStandardError { log.warning("stderr: \(line)") } else { log.info("stdout: \(line)") }
            },
            didLaunch: { pid in self.childDidLaunch(pid) },
            didEnd: { outcome in self.childDidEnd(outcome, plan: plan) })
        supervisor.namesGroupsByNumber = byNumber
        if let error = supervisor.start() {
            wake.close()
            finish(withResult: .failure(Error(code: .launchFailed, detail: "no thread to supervise it: \(error)")))
        }
    }

    /// Signals the process group to end (see the class's discussion).
    open override func procedureDidCancel(withErrors errors: [any Swift.Error]) {
        lifecycle.cancel()
    }

    /// When no process was launched (cancelled first, bad input, a failed launch), closes this process's copies of
    /// the child's ends of `Pipe` streams, as a launch would have, so that nothing waits at their other ends.
    open override func procedureWillFinish(withErrors errors: [any Swift.Error]) {
        let (request, launched, inputOverride) = values.withLock {
            ($0.input.value, $0.processIdentifier != 0, $0.standardInputOverride)
        }
        if !launched { request?.releasePipeEnds(inputOverride: inputOverride, owner: lifecycle) }
    }

    private func childDidLaunch(_ pid: pid_t) {
        values.withLock { values in
            values.processIdentifier = pid
            values.process = RunningProcess(processIdentifier: pid, lifecycle: lifecycle)
        }
        // A child launched while the procedure was being cancelled is being ended already: not worth announcing.
        guard !isCancelled else { return }
        processDidLaunch(self)
    }

    private func childDidEnd(_ outcome: SupervisionOutcome, plan: LaunchPlan) {
        values.withLock { $0.process = nil }
        if isCancelled {
            // ProcedureKit hides how a cancelled process ended: the cancellation's errors say why it stopped.
            finish()
            return
        }
        switch outcome {
        case .notLaunched:
            finish()
        case .launchFailed(let error):
            finish(withResult: .failure(error))
        case .statusUnavailable(let number):
            let detail =
                "\(Self.commandLine(plan.arguments)) ended, but its status was taken by another waitpid "
                + "(is SIGCHLD ignored, or does a library reap every child?): \(String(cString: strerror(number)))"
            finish(withResult: .failure(Error(code: .statusUnavailable, detail: detail)))
        case .terminated(let status, let reason, let output, let error):
            let commandLine = Self.commandLine(plan.arguments)
            guard processDidExitCleanly(status, reason) else {
                finish(
                    withResult: .failure(
                        Error(
                            code: .didNotExitCleanly, status: status, reason: reason, detail: commandLine,
                            standardErrorTail: error.standardErrorTail)))
                return
            }
            for (stream, collected) in [("standard output", output), ("standard error", error)]
            where collected.droppedBytes > 0 {
                finish(
                    withResult: .failure(
                        Error(
                            code: .outputLimitExceeded, status: status, reason: reason,
                            detail: "\(commandLine): \(stream) was \(collected.data.count + collected.droppedBytes) "
                                + "bytes, over the capture limit of \(collected.captureLimit ?? 0)",
                            standardErrorTail: error.standardErrorTail)))
                return
            }
            finish(
                withResult: .success(
                    TerminationResult(
                        status: status, reason: reason, standardOutput: output.data, standardError: error.data)))
        }
    }

    /// The command line for messages, cut at 200 characters.
    private static func commandLine(_ arguments: [String]) -> String {
        let line = arguments.map { $0.contains(" ") || $0.isEmpty ? $0.debugDescription : $0 }.joined(separator: " ")
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}

/// A launched child, as ProcedureKit's tests reach it (`procedure.process`): Foundation's `Process` there.
final class RunningProcess: Sendable {
    /// The child's pid.
    let processIdentifier: pid_t
    private let lifecycle: ChildLifecycle

    init(processIdentifier: pid_t, lifecycle: ChildLifecycle) {
        self.processIdentifier = processIdentifier
        self.lifecycle = lifecycle
    }

    /// Sends `SIGTERM` to the child alone, as `Process.terminate()` does (not a cancellation: the procedure then
    /// fails with ``ProcessProcedure/Error/didNotExitCleanly(_:_:)``).
    func terminate() {
        lifecycle.signalChild(SIGTERM)
    }

}
